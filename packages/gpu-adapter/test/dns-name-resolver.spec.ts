/** Node's DNS resolver against the NameResolver contract, on a DNS server on loopback. */
import { expect } from 'chai';
import { DnsDiscovery, ManageBackends, PoolFollower } from '@runload/core';
import { createInMemoryPorts, FakeClock, ManualTimers } from '@runload/core/testing';
import { describeNameResolverContract } from '@runload/core/contract-tests';
import { DnsNameResolver } from '@runload/gpu-adapter';
import { startDnsTestServer } from './dns-test-server.js';

describeNameResolverContract('node:dns on a loopback DNS server', async () => {
  const server = await startDnsTestServer();
  let closed = false;
  return {
    subject: new DnsNameResolver([server.address], 200),
    setAddresses: (name, addresses) => {
      if (addresses.length === 0) server.names.delete(name);
      else server.names.set(name, [...addresses]);
    },
    breakResolver: async () => {
      closed = true;
      await server.close();
    },
    teardown: async () => {
      if (!closed) await server.close();
    },
  };
});

describe('a DNS name followed through a DNS server on loopback', () => {
  it('moves the pool as addresses are added and removed', async () => {
    const server = await startDnsTestServer();
    const clock = new FakeClock(Date.UTC(2026, 5, 1));
    const ports = createInMemoryPorts({ clock });
    const manage = new ManageBackends(ports.backends, ports.runs, clock, ports.ids);
    const timers = new ManualTimers(clock);
    const dns = new DnsDiscovery(manage, ports.backends, new DnsNameResolver([server.address], 200), timers, { names: [{ name: 'comfy.gpu.test', port: 8188 }], auth: null, refreshMs: 10_000, log: () => undefined });
    const follower = new PoolFollower({ registry: ports.backends, runs: ports.runs, executor: ports.executor, clock, timers, log: () => undefined });
    const pool = async () => (await manage.list()).map((v) => `${v.backend.url} ${v.backend.source} ${v.backend.state}`);
    try {
      server.names.set('comfy.gpu.test', ['127.0.0.11', '127.0.0.12']);
      await dns.start();
      expect(await pool()).to.deep.equal(['http://127.0.0.11:8188 dns active', 'http://127.0.0.12:8188 dns active']);
      server.names.set('comfy.gpu.test', ['127.0.0.12', '127.0.0.13']);
      await timers.advance(10_000);
      await follower.refresh();
      expect(await pool(), 'the vanished address drained and removed, the new one added').to.deep.equal(['http://127.0.0.12:8188 dns active', 'http://127.0.0.13:8188 dns active']);
    } finally {
      dns.stop();
      await server.close();
    }
  });
});
