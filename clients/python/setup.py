"""Builds the engram package; its gRPC stubs are generated here, from the repository's proto/.

The stubs (engram/v1/*_pb2.py, *_pb2_grpc.py) are never kept in the source tree: build_py
runs grpc_tools.protoc on every engram/v1/*.proto into the build directory, so an install
always carries stubs of the contract it was built from. The .proto files are found in
ENGRAM_PROTO_DIR, else in ../../proto (the repository this package lives in).

Works offline, without build isolation, with the distribution's setuptools and grpc_tools:
    pip install --no-build-isolation --no-index clients/python
"""
import glob
import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def proto_dir():
    d = os.environ.get("ENGRAM_PROTO_DIR") or os.path.join(HERE, "..", "..", "proto")
    d = os.path.abspath(d)
    if not glob.glob(os.path.join(d, "engram", "v1", "*.proto")):
        sys.exit("engram: no engram/v1/*.proto under %s (set ENGRAM_PROTO_DIR to the repository's proto/)" % d)
    return d


def generate_stubs(out):
    """Compile proto/engram/v1/*.proto into out/engram/v1/ (a package: __init__.py added)."""
    src = proto_dir()
    files = sorted(os.path.relpath(f, src) for f in glob.glob(os.path.join(src, "engram", "v1", "*.proto")))
    try:
        import grpc_tools  # noqa: F401  (the check gives a clearer message than protoc's)
    except ImportError:
        sys.exit("engram: grpc_tools is needed to build (Debian: python3-grpc-tools)")
    os.makedirs(os.path.join(out, "engram", "v1"), exist_ok=True)
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I", src, "--python_out", out,
                    "--grpc_python_out", out] + files, check=True)
    with open(os.path.join(out, "engram", "v1", "__init__.py"), "w") as f:
        f.write('"""engram.v1 messages and stubs, generated from proto/ when the package was built."""\n')


class build_py_with_stubs(build_py):
    def run(self):
        super().run()
        # an editable install (pip install -e) imports the source tree: the stubs go there
        generate_stubs(HERE if getattr(self, "editable_mode", False) else self.build_lib)


setup(cmdclass={"build_py": build_py_with_stubs})
