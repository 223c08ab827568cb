#!/usr/bin/env node
// The `runload` command. In a clone (sources present, tsx installed) it runs the TypeScript
// sources, so no build is needed; in an install of the built package it runs dist/.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'src/cli/main.ts');

function tsxAvailable() {
  try {
    createRequire(path.join(root, 'package.json')).resolve('tsx');
    return true;
  } catch {
    return false;
  }
}

if (existsSync(source) && tsxAvailable()) {
  const child = spawn(process.execPath, ['--conditions=@runload/source', '--import', 'tsx', source, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
} else {
  await import(path.join(root, 'dist/cli/main.js'));
}
