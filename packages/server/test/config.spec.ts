/** The configuration read from the environment: what it refuses to start with, in one line. */
import { expect } from 'chai';
import { loadConfig } from '@runload/server';

const refusal = (urls: string) => {
  try {
    loadConfig({ RUNLOAD_COMFYUI_URLS: urls });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('configuration: RUNLOAD_COMFYUI_URLS', () => {
  it('refuses a URL with credentials, which /healthz, /metrics and the logs would show', () => {
    expect(refusal('http://127.0.0.1:8188,http://admin:s3cr3t@gpu-2:8188')).to.equal(
      'RUNLOAD_COMFYUI_URLS: a URL with credentials would show them in /healthz, /metrics and the logs; reach ComfyUI on a private network instead, or give them with RUNLOAD_COMFYUI_AUTH_HEADER (or backends add --auth-header / --basic-auth)',
    );
  });

  it('refuses what is no http(s) base URL: a space in the host, a port out of range, a broken IPv6, another scheme, a query', () => {
    expect(refusal('http://a b:8188')).to.equal('RUNLOAD_COMFYUI_URLS: "http://a b:8188" is not a valid URL');
    expect(refusal('http://127.0.0.1:99999')).to.equal('RUNLOAD_COMFYUI_URLS: "http://127.0.0.1:99999" is not a valid URL');
    expect(refusal('http://[::1')).to.equal('RUNLOAD_COMFYUI_URLS: "http://[::1" is not a valid URL');
    expect(refusal('ftp://gpu-1')).to.equal('RUNLOAD_COMFYUI_URLS: "ftp://gpu-1" is not an http(s) URL');
    expect(refusal('http://gpu-1:8188?token=x')).to.equal(`RUNLOAD_COMFYUI_URLS: "http://gpu-1:8188?token=x" must be the server's base URL, without a query or fragment`);
  });

  it('takes base URLs, with or without a path or a trailing slash, and an empty list (an instance with no backend)', () => {
    expect(loadConfig({ RUNLOAD_COMFYUI_URLS: 'http://gpu-1:8188/, https://gpu.example.com/comfy' }).comfyUiUrls).to.deep.equal(['http://gpu-1:8188', 'https://gpu.example.com/comfy']);
    expect(loadConfig({ RUNLOAD_COMFYUI_URLS: '' }).comfyUiUrls).to.deep.equal([]);
    expect(loadConfig({}).comfyUiUrls).to.deep.equal(['http://127.0.0.1:8188']);
  });
});

describe('configuration: RUNLOAD_LOG_LEVEL', () => {
  it('refuses a level the logger does not have, in one line', () => {
    expect(() => loadConfig({ RUNLOAD_LOG_LEVEL: 'verbose' })).to.throw('RUNLOAD_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "verbose"');
    expect(() => loadConfig({ RUNLOAD_LOG_LEVEL: 'debug' })).to.not.throw();
  });
});

describe('configuration: RUNLOAD_DISPATCH_AHEAD', () => {
  it('is on unless set to false, 50 ms ahead unless told, and refuses anything but true or false in one line', () => {
    expect(loadConfig({}).dispatchAhead).to.deep.equal({ leadMs: 50 });
    expect(loadConfig({ RUNLOAD_DISPATCH_AHEAD: 'true', RUNLOAD_DISPATCH_AHEAD_LEAD_MS: '120' }).dispatchAhead).to.deep.equal({ leadMs: 120 });
    expect(loadConfig({ RUNLOAD_DISPATCH_AHEAD: 'false' }).dispatchAhead).to.equal(null);
    expect(() => loadConfig({ RUNLOAD_DISPATCH_AHEAD: '1' })).to.throw('RUNLOAD_DISPATCH_AHEAD must be true or false, got "1"');
    expect(() => loadConfig({ RUNLOAD_DISPATCH_AHEAD_LEAD_MS: '0' })).to.throw('RUNLOAD_DISPATCH_AHEAD_LEAD_MS');
  });
});
