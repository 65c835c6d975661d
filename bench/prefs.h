/*
 * prefs.h — `engram-bench prefs`: what the user values, built from chat over weeks, asked back.
 *
 * Each scenario of the set (bench/data/prefs.json; docs/preferences.md, "Benchmark") is one
 * user whose sessions are ingested through ingestd in date order; after a session, the
 * outcomes the data says an application reports are recorded with Graph.RecordOutcome on
 * the edge they are about. Then each question is asked with Recall at its date and the
 * items of "What the user values" (RecallItem.preference) are scored against the
 * question's expectations: a preference is *held* when it is listed, not POTENTIALLY_STALE
 * or SUPERSEDED, and its confidence is at least 0.5; `present` wants one held, `absent`
 * none, `higher` the first held and more confident than the second. Accuracy counts the
 * questions whose every expectation holds; item precision and recall are over held items.
 *
 * Two enrichers: the offline rules (`--enricher rules`, the default) and the LLM enricher
 * (`--enricher llm`) against a deterministic stand-in for the chat model served by the
 * bench itself, which answers each window with the annotations the data file gives for
 * that round — the LLM path's upper bound, when the model extracts exactly what an
 * annotator wrote. `both` runs the two on one set of daemons, each with its own users.
 * --split tune|confirm runs one fixed half of the scenarios, by the hash of the name
 * (bench/split.h); each question in --json names its scenario's half either way.
 * argv[0] is "prefs".
 */
#ifndef EG_BENCH_PREFS_H
#define EG_BENCH_PREFS_H

int eg_bprefs_main(int argc, char **argv);

#endif
