"""What the tests share: the daemons run_tests.py started, and clients connected to them."""
import json
import os
import socket
from datetime import datetime, timezone

from engram import Engram

if "ENGRAM_TEST_ADDRS" not in os.environ:
    raise RuntimeError("run the client tests through run_tests.py (it starts the daemons)")
ADDRS = json.loads(os.environ["ENGRAM_TEST_ADDRS"])  # daemon -> host:port
TLS_ADDRS = json.loads(os.environ["ENGRAM_TEST_TLS_ADDRS"])  # the same, of the daemons serving TLS
CERTS = os.environ["ENGRAM_TEST_CERTS"]  # ca.pem (signed the daemons' certificate), rogue.pem (did not)
TOKENS = json.loads(os.environ["ENGRAM_TEST_TOKENS"])  # "user", "admin" (tenant acme), "other" (tenant other)
TENANT = "acme"


def connect(cls=Engram, token="user", tenant=TENANT, addrs=None, **kw):
    """A client of the test daemons (addrs: ADDRS, or TLS_ADDRS); token names one of TOKENS,
    or is sent as it is."""
    addrs = addrs or ADDRS
    return cls(ingestd=addrs["ingestd"], graphd=addrs["graphd"], vectord=addrs["vectord"],
               recalld=addrs["recalld"], token=TOKENS.get(token, token), tenant=tenant, **kw)


def closed_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def utc(*args):
    return datetime(*args, tzinfo=timezone.utc)
