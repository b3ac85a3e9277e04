//! argmend's integration tests, built as one binary (one link, one run).

mod adapters; // issue 27: every event an SDK stream sends, per-tool schemas, live values
mod adversarial; // issue 7: inputs built to break the engine
mod api; // facts about the public API (Send + Sync, limits)
mod batch_jobs; // issue 31: repair --batch --jobs N, in order, in bounded memory
mod beside_strings; // issue 25: faults beside strings
mod boundary; // issue 26: the workspace boundary held by the kernel
mod bounds; // issue 26: work bounded by the request
mod call; // the tool-call runtime (issue 6)
mod call_bounds; // issue 26: a call's size capped, results that cannot close their block
mod call_hostile; // prose tags, cut-off calls, attribute bounds (issue 14)
mod cli; // the built binary: golden tests of `argmend repair`
mod clients; // the model API adapters on recorded streams (issue 15)
mod conformance; // the peers' public suites, read from ../shared/conformance
mod corpus; // corpus/<family>/<name>.in beside .out and .fixes
mod diff; // @diff (issue 5)
mod docs; // every console example of the docs runs as shown (snapbox)
mod doubts; // issue 25: the doubt of each kind, none where the input is clear
mod files_git; // issue 43: the git guard as git reads it, control files, owners, names, deep trees
mod fuzz_seeds; // replays the fuzz targets' seeds on stable
mod hostile; // issue 13's first items: FIFOs refused, no writes into .git
mod hostile_diff; // issue 13: git patch forms, rollback and path messages
mod hostile_json; // issue 13: duplicate keys, real-world YAML, capped counts
mod js; // the JavaScript package: npm test and the browser test (issue 29)
mod json; // @json (issue 4)
mod layers; // issue 30: the files of src/repair/ import each other in no cycle
mod mcp; // argmend mcp (issue 6): a real MCP client and raw JSON-RPC
mod mcp_bounds; // issue 26: mcp bounded under any client, ids on every refusal
mod normalize; // tool-aware normalization (issue 3)
mod properties; // proptest: the six guarantees
#[cfg(feature = "proxy")]
mod proxy; // issue 44: argmend proxy against the SDKs, errors, disconnects, 200 streams
mod python; // the Python package: pytest in target/py-venv (issue 12)
mod quoted_code; // generated tool calls with unescaped quotes in code (issue 11)
mod readme; // the guide's table of what is mended
mod readme_crate; // issue 41: the README's Rust examples built as a user's crate
mod real_calls; // issue 25: tool calls from real files
mod real_failures; // issue 42: broken JSON models really wrote (../shared/real_failures)
mod rng; // the seeded splitmix64 PRNG of the generated tests
mod sdk_streams; // issue 27: the SDKs' own recorded streams (in ../shared/)
mod serve; // argmend serve: bad lines, ids, bounded memory (issue 14)
mod shared; // issue 41: other projects' data, read from ../shared/ (skipped when missing)
mod snapshots; // a snapshot does not depend on where the chunks were cut (issue 45)
mod stream; // ToolCallStream: field events, the snapshot as a value (issue 15)
mod stream_corruptions; // issue 27: recorded streams cut, stopped, finals only, quotes
mod structure; // issue 42: generated structural damage, per family
mod support; // helpers shared by the modules above (a temp dir with a workspace)
mod tool_formats; // issue 44: the open-weight formats against vLLM's own test vectors
mod truncation; // real calls cut at every byte: a prefix of the truth (issue 11)
mod values; // several top-level values: First, Lines, Array
mod work_stops; // issue 43: work ends with its answer, nothing quadratic (CPU, VmHWM)
