#!/usr/bin/env node
require('../lib/bench-cli/main').main();
