/**
 * No file of the repository cites a document that is not in it (a team contract or a
 * specification by section number, protocol notes by paragraph): a reader could not follow the
 * reference. Each place says the rule itself, or links to the docs page that states it.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** This file spells the forms out, as examples. */
const THIS_FILE = path.relative(REPO_ROOT, fileURLToPath(import.meta.url)).split(path.sep).join('/');

/** The forms a citation of an outside document takes. */
const OUTSIDE_REFERENCES: readonly RegExp[] = [
  /\b(?:CONTRACT|SPEC)(?:\.md)? ?(?:§ ?|section )?\d/, // CONTRACT 8, SPEC 7.1, SPEC.md 7.1, CONTRACT section 14
  /\b(?:CONTRACT|SPEC)(?:\.md\b|:)/, // CONTRACT.md, CONTRACT: "…"
  /\((?:spec|contract) \d/i, // (spec 8.2)
  /\b(?:contract|spec)'s (?:section|rule)/i, // the contract's section
  /\bthe (?:contract|spec) (?:allows|asks|says|requires|is silent)/i, // the second the contract allows
  /§ ?\d|\bprotocol §/, // protocol §3, §14
  /comfyui-protocol|reference\/comfy|\.\.\/shared\b|\/work\/shared/, // the protocol notes, the team's shared folder
];

/** Written by others, not by us: the lockfile, licence texts, patches of dependencies, recorded ComfyUI exchanges. */
const NOT_OURS = [/(^|\/)pnpm-lock\.yaml$/, /(^|\/)LICENSE$/, /^patches\//, /\.jsonl$/];

/** Tracked files, and new ones not ignored, so a citation is caught before its commit. */
function repositoryFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const files = [...new Set(listed.split('\0').filter((f) => f !== ''))];
  return files.filter((f) => f !== THIS_FILE && !NOT_OURS.some((p) => p.test(f)));
}

/** The text of a file, or null for a binary one or one deleted but not yet staged. */
function textOf(file: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(REPO_ROOT, file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
    throw error;
  }
  return bytes.includes(0) ? null : bytes.toString('utf8');
}

const cites = (line: string) => OUTSIDE_REFERENCES.some((p) => p.test(line));

describe('references to documents outside the repository', function () {
  this.timeout(30_000);

  it('recognises every form such a citation has taken, and not the words that only look like one', () => {
    const citations = [
      'the run and this response are written in one transaction (CONTRACT 8).',
      'the three body forms of SPEC 7.1',
      'as CONTRACT section 14 says',
      'see SPEC.md 7.1',
      'the decisions of CONTRACT.md',
      '(CONTRACT: "Backends are re-read after a restart")',
      'the general limit (spec 8.2)',
      "the contract's section on limits",
      'for at most the second the contract allows',
      "ComfyUI's validation (protocol §3)",
      'the input spec (§9 of the protocol)',
      'as comfyui-protocol.md records',
      'copied from ../shared/reference/comfyui-v0.3.64-transcripts',
    ];
    const ordinary = [
      'STORAGE_CONTRACT_PARENTS.accountIds[0]',
      'the contract suite runs against every adapter',
      'LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE',
      'HEAD is answered wherever GET is (RFC 9110 9.3.2)',
      'response(spec, base, withBody)',
      'an OpenAPI 3.1 document',
    ];
    expect(citations.filter((line) => !cites(line))).to.deep.equal([]);
    expect(ordinary.filter(cites)).to.deep.equal([]);
  });

  it('finds none in the source, tests, scripts and docs', () => {
    const files = repositoryFiles();
    expect(files).to.include('README.md');
    const found: string[] = [];
    for (const file of files) {
      const text = textOf(file);
      if (text === null) continue;
      text.split('\n').forEach((line, i) => {
        if (cites(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
    }
    expect(found, `say the rule itself, or link to the docs page that states it:\n${found.join('\n')}\n`).to.deep.equal([]);
  });
});
