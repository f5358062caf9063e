#!/usr/bin/env node
// Runs the contract kit's TypeScript entry point through tsx, so the bin needs no build step.
'use strict';
require('tsx/cjs');
require('../src/cli/contract.ts');
