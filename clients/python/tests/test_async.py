"""AsyncEngram (grpc.aio) against the real daemons: the same methods, awaited."""
import asyncio
import unittest
from datetime import date

import grpc

from engram import AsyncEngram, InvalidArgument, ItemKind, PermissionDenied, Unauthenticated
from support import connect, utc


class AsyncRoundTrip(unittest.IsolatedAsyncioTestCase):
    async def test_remember_then_recall(self):
        async with connect(AsyncEngram, user="lena") as engram:
            wrote = await engram.remember([("user", "My cello lessons are on Thursdays at the conservatory."),
                                           ("assistant", "Nice, how long have you been playing?")],
                                          session_id="lena-1", time=utc(2024, 3, 5, 18))
            self.assertGreaterEqual(wrote.chunks, 1)
            got = await engram.recall("When are my cello lessons?", k=5)
            self.assertIn("Thursdays", got.context)
            chunk = next(i for i in got.items if i.kind is ItemKind.CHUNK)
            self.assertEqual((chunk.source, chunk.valid_time), ("lena-1", utc(2024, 3, 5, 18)))

    async def test_facts_and_history_concurrently(self):
        async with connect(AsyncEngram, user="lena") as engram:
            first = await engram.assert_fact("Lena Berg", "DIET", "vegetarian", valid_from=date(2021, 1, 1))
            second = await engram.assert_fact("Lena Berg", "DIET", "vegan", valid_from=date(2024, 1, 1),
                                              reason="for health reasons")
            now, then, history = await asyncio.gather(engram.facts("Lena Berg", relation="DIET"),
                                                      engram.facts("Lena Berg", at="2022-06-01"),
                                                      engram.history("Lena Berg", "DIET"))
            self.assertEqual([(f.value, f.reason) for f in now], [("vegan", "for health reasons")])
            self.assertEqual([f.value for f in then], ["vegetarian"])
            self.assertEqual([(h.fact.id, h.superseded_by) for h in history],
                             [(first.edge_ids[0], second.edge_ids[0]), (second.edge_ids[0], None)])

    async def test_record_outcome(self):
        async with connect(AsyncEngram, user="pia") as engram:
            liked = await engram.assert_fact("user:pia", "PREFERS", "aisle seat", session_id="pia-1")
            got = await engram.record_outcome(liked.edge_ids[0], "ACTED_ON", note="booked 14C")
            self.assertEqual((got.edge_id, got.kind, got.note, got.source),
                             (liked.edge_ids[0], "ACTED_ON", "booked 14C", "client"))
            self.assertAlmostEqual(got.confidence, 1 - 0.4 * 0.7, places=4)  # the fact 0.6, ACTED_ON 0.3

    async def test_errors_are_raised_when_awaited(self):
        async with connect(AsyncEngram) as engram:
            pending = engram.recall("")  # nothing raised, nothing sent yet
            with self.assertRaises(InvalidArgument) as e:
                await pending
            self.assertEqual(e.exception.method, "")
            with self.assertRaises(InvalidArgument) as e:
                await engram.recall("where?", k=1000)
            self.assertEqual((e.exception.code, e.exception.method),
                             (grpc.StatusCode.INVALID_ARGUMENT, "/engram.v1.Recall/Recall"))
            with self.assertRaises(PermissionDenied):
                await engram.forget("lena")
        async with connect(AsyncEngram, token="eg_wrong") as engram:
            with self.assertRaises(Unauthenticated) as e:
                await engram.facts("Lena Berg")
            self.assertEqual(e.exception.code, grpc.StatusCode.UNAUTHENTICATED)

    async def test_forget(self):
        async with connect(AsyncEngram, user="ivo") as ivo, connect(AsyncEngram, token="admin") as admin:
            await ivo.remember([("user", "My passport number ends in 9921.")], session_id="ivo-1")
            gone = await admin.forget("ivo")
            self.assertGreater(gone.total, 0)
            after = await ivo.recall("What does my passport number end in?")
            self.assertNotIn("9921", after.context)
        self.assertFalse(ivo._conn.channels, "async with closed the channels")


if __name__ == "__main__":
    unittest.main()
