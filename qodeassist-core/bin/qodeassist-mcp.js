#!/usr/bin/env node
require('../lib/mcp/stdio-bridge').main();
