// Reads a RIS file with citation-js (@citation-js/plugin-ris, its default "mixed"
// spec), as a JavaScript user would, and prints the CSL-JSON items it makes of it,
// without citation-js's own bookkeeping (`_graph`, and `id`, which it makes up).
//
// Run by `cargo test` (tests/it/export.rs) after `npm ci --prefix tests/readers`:
// node citation_js_read.mjs FILE
import { readFileSync } from 'node:fs'
import { Cite } from '@citation-js/core'
import '@citation-js/plugin-ris'

const text = readFileSync(process.argv[2], 'utf8')
const cite = await Cite.async(text, { forceType: '@ris/file' })
const items = cite.data.map(({ _graph, id, ...item }) => item)
console.log(JSON.stringify(items))
