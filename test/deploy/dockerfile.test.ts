import { describe, expect, it } from 'vitest';
import { parseCopy, parseDockerfile, parseEnvInstruction, parseExecForm } from './dockerfile.js';

// The reader the image test follows the Dockerfile with (test/deploy/image.test.ts).
describe('reading a Dockerfile', () => {
  it('splits stages, joins continued lines and drops comments', () => {
    const stages = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'FROM node:24-bookworm-slim AS build',
        'RUN npm ci \\',
        '    --ignore-scripts',
        '',
        'FROM node:24-bookworm-slim',
        '# a comment',
        'ENV A=1 \\',
        '    B="two words"',
        'CMD ["node", "main.js"]',
      ].join('\n'),
    );
    expect(stages).toEqual([
      {
        name: 'build',
        image: 'node:24-bookworm-slim',
        instructions: [{ keyword: 'RUN', args: 'npm ci      --ignore-scripts' }],
      },
      {
        name: undefined,
        image: 'node:24-bookworm-slim',
        instructions: [
          { keyword: 'ENV', args: 'A=1      B="two words"' },
          { keyword: 'CMD', args: '["node", "main.js"]' },
        ],
      },
    ]);
    expect(parseEnvInstruction(stages[1]!.instructions[0]!.args)).toEqual({
      A: '1',
      B: 'two words',
    });
    expect(parseExecForm('CMD', stages[1]!.instructions[1]!.args)).toEqual(['node', 'main.js']);
  });

  it('reads COPY from the context and from a stage', () => {
    expect(parseCopy('package.json app.yml ./')).toEqual({
      from: undefined,
      sources: ['package.json', 'app.yml'],
      destination: './',
    });
    expect(parseCopy('--from=build /app/dist ./dist')).toEqual({
      from: 'build',
      sources: ['/app/dist'],
      destination: './dist',
    });
  });

  it('refuses what the image test would not reproduce faithfully', () => {
    expect(() => parseCopy('--chown=node:node src ./src')).toThrow(
      'the image test does not reproduce COPY --chown=node:node',
    );
    expect(() => parseExecForm('CMD', 'node main.js')).toThrow('expected the exec form of CMD');
    expect(() => parseDockerfile('WORKDIR /app\nFROM node')).toThrow(
      'WORKDIR before the first FROM',
    );
    expect(() => parseDockerfile('FROM node\nRUN true \\')).toThrow(
      'ends inside a line continuation',
    );
  });
});
