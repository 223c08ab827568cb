/**
 * A tiny DNS server on loopback UDP for tests: answers A and AAAA questions from a table the
 * test changes; an unknown name is NXDOMAIN. Only what a resolver's lookup of a name needs.
 */
import dgram from 'node:dgram';
import { isIPv4 } from 'node:net';

const A = 1;
const AAAA = 28;

export interface DnsTestServer {
  /** `127.0.0.1:PORT`, for `setServers`. */
  readonly address: string;
  readonly names: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startDnsTestServer(): Promise<DnsTestServer> {
  const names = new Map<string, string[]>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (query, from) => {
    const { name, type, end } = readQuestion(query);
    const known = names.get(name.toLowerCase());
    const answers = (known ?? []).filter((a) => (type === A ? isIPv4(a) : type === AAAA ? !isIPv4(a) : false));
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // the id
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // a response; NXDOMAIN for an unknown name
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const data = type === A ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(0, 6); // TTL 0: every lookup asks again
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, end), ...records]), from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    names,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at] !== 0 && at < query.length) {
    const length = query[at] as number;
    labels.push(query.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += length + 1;
  }
  const type = query.readUInt16BE(at + 1);
  return { name: labels.join('.'), type, end: at + 5 };
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array.from({ length: 8 - left.length - right.length }, () => '0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return bytes;
}
