"""Engram (blocking) against the real daemons: writes, recall, facts, history, outcomes, errors, auth, forget."""
import time
import unittest
from datetime import date, datetime, timezone

import grpc

from engram import (DeadlineExceeded, Engram, InvalidArgument, ItemKind, NotFound, Outcome, PermissionDenied,
                    Status, Unauthenticated, Unavailable)
from engram.client import resolve_addresses
from support import closed_port, connect, utc

LISBON = [("user", "I moved to Lisbon last October for a job at a fintech startup."),
          ("assistant", "How are you finding Lisbon?"),
          {"role": "user", "content": "I love the tram rides along the river."}]


class RememberRecall(unittest.TestCase):
    def test_conversation_round_trip(self):
        with connect(user="maya") as engram:
            wrote = engram.remember(LISBON, session_id="maya-1", time="2024-05-02T09:00:00Z")
            self.assertTrue(wrote.done)
            self.assertGreaterEqual(wrote.chunks, 1)
            self.assertFalse(wrote.duplicate)
            self.assertTrue(wrote.watermark)
            again = engram.remember(LISBON, session_id="maya-1", time="2024-05-02T09:00:00Z")
            self.assertTrue(again.duplicate, "the same content is written once")

            got = engram.recall("Where do I live now?", at=date(2024, 6, 1))
            self.assertFalse(got.nothing_relevant)
            self.assertIn("Lisbon", got.context)
            self.assertIn("asked 2024-06-01", got.context)
            chunks = [i for i in got.items if i.kind is ItemKind.CHUNK]
            self.assertTrue(chunks)
            best = chunks[0]
            self.assertIn("Lisbon", best.text)
            self.assertEqual(best.source, "maya-1")
            self.assertEqual(best.valid_time, utc(2024, 5, 2, 9))
            self.assertGreater(best.score, 0)
            self.assertIsInstance(best.status, Status)
            self.assertGreater(got.context_tokens, 0)
            self.assertTrue(all(isinstance(s, float) for s in got.timings.values()))

    def test_preferences_in_recall(self):
        with connect(user="lena") as engram:
            engram.remember([("user", "I love thai food. The green curry place is my go-to.")], session_id="lena-1",
                            time="2025-01-10T19:00:00Z")
            engram.remember([("user", "Honestly, I love thai food.")], session_id="lena-2", time="2025-02-14T19:00:00Z")
            got = engram.recall("What food should I order tonight?", at=date(2025, 3, 1))
            self.assertIn("What the user values", got.context)
            prefs = [i for i in got.items if i.preference]
            self.assertEqual(len(prefs), 1, got.context)
            self.assertIs(prefs[0].kind, ItemKind.FACT)
            self.assertEqual(prefs[0].fact.relation, "LIKES")
            self.assertAlmostEqual(prefs[0].belief, 0.91, places=3)
            self.assertTrue(all(i.belief is None for i in got.items if i.kind is ItemKind.CHUNK))

    def test_document_round_trip(self):
        with connect() as engram:
            engram.remember(document="The office closes at 6 pm on Fridays; the badge desk is on floor two.",
                            document_id="handbook", title="Handbook", time=date(2024, 3, 1),
                            metadata={"team": "ops"})
            got = engram.recall("When does the office close on Friday?")
            docs = [i for i in got.chunks if i.document_id == "handbook"]
            self.assertTrue(docs, got.context)
            self.assertEqual(docs[0].valid_time.date(), date(2024, 3, 1))
            self.assertIn("6 pm", docs[0].text)

    def test_background_write(self):
        with connect(user="sam") as engram:
            queued = engram.remember([("user", "I adopted a beagle named Biscuit last week.")], background=True)
            self.assertFalse(queued.done)
            self.assertTrue(queued.job_id)
            self.assertTrue(engram.wait(queued.watermark, timeout=10))
            # visible once the watermark is reached; the job is marked done right after
            for _ in range(100):
                job = engram.job(queued.job_id)
                if job.state != "running":
                    break
                time.sleep(0.05)
            self.assertEqual(job.state, "done")
            self.assertEqual(job.result.chunks, 1)
            got = engram.recall("What is my dog called?", watermark=queued.watermark)
            self.assertIn("Biscuit", got.context)

    def test_unknown_job_is_not_found(self):
        with connect() as engram:
            with self.assertRaises(NotFound) as e:
                engram.job("job-that-never-was")
            self.assertEqual(e.exception.code, grpc.StatusCode.NOT_FOUND)
            self.assertEqual(e.exception.method, "/engram.v1.Ingest/GetJob")


class FactsHistory(unittest.TestCase):
    def test_asserted_facts_state_history_and_recall(self):
        with connect(user="ravi") as engram:
            berlin = engram.assert_fact("Ravi Shah", "LIVES_IN", "Berlin", entity=True, valid_from="2020-01-01")
            between = datetime.now(timezone.utc)
            lisbon = engram.assert_fact("Ravi Shah", "LIVES_IN", "Lisbon", entity=True,
                                        valid_from=date(2023, 10, 1), reason="new job")
            self.assertEqual(len(berlin.edge_ids), 1)
            self.assertEqual(len(lisbon.edge_ids), 1)

            now = engram.facts("Ravi Shah")
            self.assertEqual([(f.relation, f.value) for f in now], [("LIVES_IN", "Lisbon")])
            fact = now[0]
            self.assertEqual(fact.id, lisbon.edge_ids[0])
            self.assertEqual(fact.subject, "Ravi Shah")
            self.assertEqual(fact.reason, "new job")
            self.assertEqual(fact.valid_from, utc(2023, 10, 1))
            self.assertIsNone(fact.valid_to)
            self.assertGreater(fact.known_at, between)
            self.assertEqual(fact.user, "ravi")
            self.assertEqual([f.value for f in engram.facts("Ravi Shah", at="2022-01-01")], ["Berlin"])
            self.assertEqual([f.value for f in engram.facts("Ravi Shah", known_at=between)], ["Berlin"],
                             "what was known before the move was asserted")

            history = engram.history("Ravi Shah", "LIVES_IN")
            self.assertEqual([(h.fact.value, h.superseded, h.superseded_by) for h in history],
                             [("Berlin", True, lisbon.edge_ids[0]), ("Lisbon", False, None)])

            got = engram.recall("Where does Ravi Shah live?")
            facts = [i for i in got.facts if i.fact and i.fact.subject == "Ravi Shah"]
            self.assertTrue(facts, got.context)
            self.assertEqual(facts[0].fact.value, "Lisbon")
            self.assertEqual([h.value for h in facts[0].history], ["Berlin"])
            self.assertEqual(facts[0].status, Status.UNVERIFIED)
            self.assertIn("Ravi Shah LIVES_IN Lisbon", got.context)

    def test_a_derived_fact_names_its_rule(self):
        with connect(user="lena") as engram:
            goal = engram.assert_fact("user:lena", "OPTIMIZES_FOR", "data sovereignty")
            a = engram.assert_fact("user:lena", "REJECTED", "Vendor A", entity=True)
            b = engram.assert_fact("user:lena", "REJECTED", "Vendor B", entity=True)
            derived = engram.facts("user:lena", relation="PREFERS")
            self.assertEqual([(f.value, f.rule) for f in derived], [("eu-hosting", "sovereignty-prefers-eu-hosting")])
            self.assertEqual(derived[0].derived_from, sorted(goal.edge_ids + a.edge_ids + b.edge_ids))
            self.assertEqual(derived[0].user, "lena")
            self.assertEqual([f.rule for f in engram.facts("user:lena", relation="REJECTED")], ["", ""])

    def test_record_outcome(self):
        with connect(user="omar") as engram:
            liked = engram.assert_fact("user:omar", "LIKES", "night trains", confidence=0.7, session_id="omar-1")
            edge = liked.edge_ids[0]
            went = engram.record_outcome(edge, "SUCCEEDED", time="2025-04-02T08:00:00Z", note="slept well")
            self.assertIsInstance(went, Outcome)
            self.assertEqual((went.edge_id, went.kind, went.time, went.note, went.source),
                             (edge, "SUCCEEDED", utc(2025, 4, 2, 8), "slept well", "client"))
            self.assertIsNotNone(went.recorded_at)
            self.assertAlmostEqual(went.confidence, 1 - 0.3 * 0.4, places=4)  # the fact 0.7, SUCCEEDED 0.6
            worse = engram.record_outcome(edge, "failed", source="trip-app")
            self.assertEqual((worse.kind, worse.source), ("FAILED", "trip-app"))
            self.assertLess(worse.confidence, went.confidence)
            with self.assertRaises(InvalidArgument) as e:
                engram.record_outcome(edge, "LOVED")
            self.assertEqual(e.exception.method, "", "nothing was sent")
            with self.assertRaises(InvalidArgument):
                engram.record_outcome(0, "SUCCEEDED")
            with self.assertRaises(NotFound) as e:
                engram.record_outcome(edge + 1000000, "SUCCEEDED")
            self.assertEqual(e.exception.method, "/engram.v1.Graph/RecordOutcome")

    def test_another_tenant_sees_nothing(self):
        with connect(user="ravi") as engram:
            engram.assert_fact("Tenant Probe", "DIET", "vegan")
        with connect(token="other", tenant="other") as other:
            self.assertEqual(other.facts("Tenant Probe"), [])
            self.assertEqual(other.history("Tenant Probe"), [])


class Errors(unittest.TestCase):
    def test_server_refuses_a_bad_argument(self):
        with connect() as engram:
            with self.assertRaises(InvalidArgument) as e:
                engram.recall("where?", k=1000)
        err = e.exception
        self.assertEqual(err.code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(err.message, "k, k1 and k2 must be at most 100")
        self.assertEqual(err.method, "/engram.v1.Recall/Recall")
        self.assertIsInstance(err, ValueError)

    def test_client_refuses_before_sending(self):
        with connect() as engram:
            for call in (lambda: engram.remember(), lambda: engram.remember([], document="x"),
                         lambda: engram.recall("   "), lambda: engram.recall("q", at="not a date"),
                         lambda: engram.recall("q", k=0), lambda: engram.forget(""),
                         lambda: engram.forget_tenant("someone-else")):
                with self.assertRaises(InvalidArgument) as e:
                    call()
                self.assertEqual(e.exception.code, grpc.StatusCode.INVALID_ARGUMENT)
                self.assertEqual(e.exception.method, "", "nothing was sent")

    def test_unreachable_daemon_is_unavailable(self):
        with Engram(recalld="127.0.0.1:%d" % closed_port(), token="t", timeout=5) as engram:
            with self.assertRaises(Unavailable) as e:
                engram.recall("anyone there?")
        self.assertEqual(e.exception.code, grpc.StatusCode.UNAVAILABLE)

    def test_timeout(self):
        with connect() as engram:
            with self.assertRaises(DeadlineExceeded):
                engram.with_options(timeout=1e-6).recall("too late")
            self.assertTrue(engram.recall("in time").context, "the client's own timeout is unchanged")


class Auth(unittest.TestCase):
    def test_tokens(self):
        for token, kind, code in (("eg_wrong", Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
                                  ("", Unauthenticated, grpc.StatusCode.UNAUTHENTICATED)):
            with connect(token=token) as engram:
                with self.assertRaises(kind) as e:
                    engram.recall("who am I?")
                self.assertEqual(e.exception.code, code)
        with connect(tenant="other") as engram:  # acme's token, another tenant's scope
            with self.assertRaises(PermissionDenied) as e:
                engram.facts("anything")
            self.assertIn("not valid for tenant", e.exception.message)

    def test_token_in_metadata(self):
        from support import TOKENS
        with connect(token="", metadata=[("authorization", "Bearer " + TOKENS["user"])]) as engram:
            self.assertIsInstance(engram.facts("Nobody Known"), list)

    def test_forget_needs_admin(self):
        with connect() as engram:
            with self.assertRaises(PermissionDenied):
                engram.forget("someone")


class Forget(unittest.TestCase):
    def test_forget_one_user(self):
        with connect(user="noor") as noor, connect(user="omar") as omar:
            noor.remember([("user", "My locker code is 4417 and my bike is a green Brompton.")], session_id="noor-1")
            noor.assert_fact("Noor Aziz", "OWNS", "green Brompton")
            omar.remember([("user", "My bike is a red Bianchi road bike.")], session_id="omar-1")
            self.assertIn("Brompton", noor.recall("What bike do I have?").context)

            with connect(token="admin") as admin:
                gone = admin.forget("noor")
            self.assertGreaterEqual(gone.counts.get(("vector", "chunks"), 0), 1)
            self.assertGreaterEqual(gone.counts.get(("graph", "edges"), 0), 1)
            self.assertIsNotNone(gone.erased_at)

            after = noor.recall("What bike do I have?")
            self.assertNotIn("Brompton", after.context)
            self.assertFalse([i for i in after.items if i.source == "noor-1"])
            self.assertEqual(noor.facts("Noor Aziz"), [])
            self.assertIn("Bianchi", omar.recall("What bike do I have?").context, "another user keeps theirs")


class Addresses(unittest.TestCase):
    def test_host_ports_and_overrides(self):
        self.assertEqual(resolve_addresses(None, {}),
                         {"ingestd": "127.0.0.1:7101", "graphd": "127.0.0.1:7102", "vectord": "127.0.0.1:7103",
                          "recalld": "127.0.0.1:7104"})
        self.assertEqual(resolve_addresses("db.local", {})["recalld"], "db.local:7104")
        self.assertEqual(resolve_addresses("10.1.2.3:8100", {"graphd": "g:9"}),
                         {"ingestd": "10.1.2.3:8100", "graphd": "g:9", "vectord": "10.1.2.3:8102",
                          "recalld": "10.1.2.3:8103"})
        self.assertEqual(resolve_addresses("[::1]:8100", {})["vectord"], "[::1]:8102")
        for bad in ("host:0", "host:http", "[::1"):
            with self.assertRaises(InvalidArgument):
                resolve_addresses(bad, {})
        with self.assertRaises(InvalidArgument):
            resolve_addresses(None, {"recalld": "no-port"})

    def test_a_view_shares_channels(self):
        with connect(user="maya") as engram:
            view = engram.with_options(user="sam", timeout=3)
            self.assertEqual((view.user, view.timeout, engram.user), ("sam", 3.0, "maya"))
            view.facts("x")
            view.close()  # a view leaves its client's channels open
            self.assertIsInstance(engram.facts("x"), list)
            self.assertTrue(engram._conn.channels)
        self.assertFalse(engram._conn.channels, "closing the client closed its channels")


if __name__ == "__main__":
    unittest.main()
