# mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
"""clients/python/_backend/mdae_build.py -- the PEP 517 build backend of
mdae-client (pyproject.toml: build-backend, backend-path).

Why: ``pip install ./clients/python`` must work in a fresh venv without a
network (issue 42). With setuptools as the backend, pip first fetches
setuptools and wheel into an isolated build environment (no network: it
fails), and with --no-build-isolation Debian's venv lacks wheel
("invalid command 'bdist_wheel'") and the build leaves build/ and
*.egg-info in the source tree. The package is pure Python (the module
mdae_client and its entry point), so this backend needs nothing but the
standard library: ``requires = []`` lets pip build it offline, isolated or
not, and it writes only the archive it is asked for, where it is asked.

Promises (PEP 517, PEP 660): build_wheel and build_sdist write one file
into the given directory and return its base name; build_editable writes a
wheel whose .pth file puts this source folder on sys.path. The metadata
(name, version, summary, entry point) is read from pyproject.toml's
[project] table and mdae_client.__version__, so it is written once.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "mdae_client"
NAME = "mdae-client"


def _version() -> str:
    with open(os.path.join(ROOT, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if m is None:
        raise RuntimeError("mdae_client/__init__.py has no __version__")
    declared = _project().get("project:version")
    if declared is not None and declared != m.group(1):
        raise RuntimeError("pyproject.toml says version %s, mdae_client says %s"
                           % (declared, m.group(1)))
    return m.group(1)


def _project() -> Dict[str, str]:
    """The [project] strings and [project.scripts] of pyproject.toml (the
    few fields this backend writes: key = "value" lines)."""
    fields: Dict[str, str] = {}
    section = ""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line.strip("[]")
                continue
            m = re.match(r'^([A-Za-z0-9_.-]+)\s*=\s*"([^"]*)"$', line)
            if m and section in ("project", "project.scripts"):
                fields[section + ":" + m.group(1)] = m.group(2)
    return fields


def _metadata() -> str:
    p = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n"
            "Requires-Python: %s\nLicense: MIT\nClassifier: Programming Language :: Python :: 3\n"
            "Classifier: Typing :: Typed\nDescription-Content-Type: text/markdown\n\n%s"
            % (NAME, _version(), p.get("project:description", ""),
               p.get("project:requires-python", ">=3.8"), readme))


def _entry_points() -> str:
    scripts = {k.split(":", 1)[1]: v for k, v in _project().items()
               if k.startswith("project.scripts:")}
    return "[console_scripts]\n" + "".join("%s = %s\n" % kv for kv in sorted(scripts.items()))


def _package_files() -> List[Tuple[str, bytes]]:
    out = []
    pkg = os.path.join(ROOT, PACKAGE)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(pkg, name), "rb") as f:
                out.append(("%s/%s" % (PACKAGE, name), f.read()))
    return out


def _dist_info() -> str:
    return "%s-%s.dist-info" % (PACKAGE, _version())


def _write_wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    info = _dist_info()
    files = files + [
        (info + "/METADATA", _metadata().encode()),
        (info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: mdae_build\nRoot-Is-Purelib: true\n"
                          b"Tag: py3-none-any\n"),
        (info + "/entry_points.txt", _entry_points().encode()),
    ]
    record = io.StringIO()
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        record.write("%s,sha256=%s,%d\n" % (path, digest.decode(), len(data)))
    record.write("%s/RECORD,,\n" % info)
    name = "%s-%s-py3-none-any.whl" % (PACKAGE, _version())
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files + [(info + "/RECORD", record.getvalue().encode())]:
            z.writestr(zipfile.ZipInfo(path, (1980, 1, 1, 0, 0, 0)), data)
    return name


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [("mdae_client.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = "%s-%s" % (PACKAGE, _version())
    name = base + ".tar.gz"
    files = ["pyproject.toml", "README.md", "_backend/mdae_build.py"] + \
        [p for p, _ in _package_files()]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in files:
            t.add(os.path.join(ROOT, rel), arcname="%s/%s" % (base, rel))
        pkg_info = _metadata().encode()
        ti = tarfile.TarInfo("%s/PKG-INFO" % base)
        ti.size = len(pkg_info)
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
