#!/usr/bin/env node
require('../lib/acp-server/main').main();
