#!/usr/bin/env node
// The `autodd` command: everything lives in src/cli.js, which library users share.
import { main } from '../src/cli.js';

process.exitCode = await main(process.argv.slice(2));
