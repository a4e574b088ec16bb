#!/usr/bin/env node
// @ts-check
// A "browser" for the conformance suite's authorization servers, which approve at once: it
// opens the authorization URL and follows its redirects, which end on mcpmux's loopback
// callback, as a person's browser would after they signed in.
const url = process.argv[2];
if (!url) throw new Error('usage: conformance-browser.js URL');
const response = await fetch(url, { redirect: 'follow' });
await response.text();
