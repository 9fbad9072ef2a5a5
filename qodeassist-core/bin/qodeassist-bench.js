#!/usr/bin/env node
require('../lib/bench/main').main();
