import { build } from 'esbuild';
import { ACTION_BUNDLE, actionBuildOptions } from './action-bundle.js';

await build(actionBuildOptions);
console.log(`wrote ${ACTION_BUNDLE}`);
