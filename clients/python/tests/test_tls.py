"""Both clients over TLS: the daemons' CA as a file or PEM bytes; another CA or plaintext fails."""
import os
import unittest

from engram import AsyncEngram, InvalidArgument, Unavailable
from support import CERTS, TLS_ADDRS, connect

CA = os.path.join(CERTS, "ca.pem")


class Tls(unittest.TestCase):
    def test_verified_round_trip(self):
        with connect(addrs=TLS_ADDRS, tls=CA, user="tess") as engram:
            engram.remember([("user", "My favourite tea is a smoky lapsang souchong.")], session_id="tess-1")
            self.assertIn("lapsang", engram.recall("Which tea do I like?").context)
        with open(CA, "rb") as f:
            pem = f.read()
        with connect(addrs=TLS_ADDRS, tls=pem, user="tess") as engram:
            self.assertIsInstance(engram.facts("Tess"), list)

    def test_unverified_or_plaintext_is_refused(self):
        for tls in (os.path.join(CERTS, "rogue.pem"), False):
            with connect(addrs=TLS_ADDRS, tls=tls, timeout=5) as engram:
                with self.assertRaises(Unavailable, msg="tls=%r" % tls):
                    engram.facts("Tess")

    def test_unreadable_ca_file(self):
        with self.assertRaises(InvalidArgument) as e:
            connect(addrs=TLS_ADDRS, tls=os.path.join(CERTS, "missing.pem"))
        self.assertIn("missing.pem", e.exception.message)


class AsyncTls(unittest.IsolatedAsyncioTestCase):
    async def test_verified_round_trip(self):
        async with connect(AsyncEngram, addrs=TLS_ADDRS, tls=CA, user="tess") as engram:
            await engram.assert_fact("Tess Moreau", "DRINKS", "lapsang souchong")
            self.assertEqual([f.value for f in await engram.facts("Tess Moreau")], ["lapsang souchong"])


if __name__ == "__main__":
    unittest.main()
