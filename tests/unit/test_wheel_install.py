"""The wheel as a user installs it (issue 30; docs/python.md, "Installing the package"): built as
build/build.py builds it, then ``pip install``ed into a fresh virtual environment without any
network, it gives ``import py_vfs``, the console command ``py-vfs`` (``py-vfs shell --disk
my.db``, with the shell's reference inside the package for ``man``) and, with the extra
``fsspec``, the ``pyvfs`` protocol registered by its entry point. The sdist carries what a wheel
built from it needs (``python -m build`` goes through it), and nothing of the site or the tests.

The virtual environment is made once for the module (``python -m venv``, about 10 s: it installs
pip); every process is bounded by a timeout that names what did not end."""

from __future__ import annotations

import configparser
import importlib.util
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

if sys.platform == "emscripten":
    pytest.skip("Emscripten (Pyodide) has no processes", allow_module_level=True)

from py_vfs.shell import manual

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
VERSION = PROJECT["version"]
REFERENCE = (ROOT / "docs" / "shell.md").read_bytes()
# Where the pinned fsspec wheel is on a machine that ran `npm test` (build/build.py fetches it
# into .cache/wheels/, `build/setup.sh --test` into .cache/pyodide-wheels/): no download here.
WHEEL_FOLDERS = [ROOT / ".cache" / "wheels", ROOT / ".cache" / "pyodide-wheels"]
VENV_S = 180  # python -m venv (ensurepip) on a slow machine
PIP_S = 120
RUN_S = 60


def _build_script():
    """build/build.py as a module: its PIP, WHEEL_ARGS and WHEEL_ENV say how it builds the wheel."""
    spec = importlib.util.spec_from_file_location("pyvfs_build_script", ROOT / "build" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _build_script()


def run(cmd: list[object], what: str, *, timeout: float = RUN_S, check: bool = True,
        **kwargs) -> subprocess.CompletedProcess[str]:
    """``cmd`` to its end within ``timeout`` s (else the test fails, naming ``what``); with
    ``check``, a non-zero status fails it too, with the process's output."""
    argv = [str(part) for part in cmd]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False,
                              **kwargs)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"{what}: still running after {timeout} s: {' '.join(argv)}\n"
                    f"stdout: {_text(expired.stdout)}\nstderr: {_text(expired.stderr)}")
    if check and proc.returncode != 0:
        pytest.fail(f"{what} failed (exit {proc.returncode}): {' '.join(argv)}\n"
                    f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""


@dataclass
class Venv:
    folder: Path
    env: dict[str, str]

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"

    @property
    def command(self) -> Path:
        return self.folder / "bin" / "py-vfs"

    def run(self, cmd: list[object], what: str, **kwargs) -> subprocess.CompletedProcess[str]:
        """In the environment, from a folder outside the checkout (nothing imports from it)."""
        kwargs.setdefault("cwd", self.folder)
        return run(cmd, what, env=self.env, **kwargs)

    def pip_install(self, *args: object) -> None:
        self.run([self.python, "-m", "pip", "install", "--no-index", *args],
                 f"pip install {' '.join(map(str, args))}", timeout=PIP_S)


def _clean_env(venv: Path) -> dict[str, str]:
    """This process's environment as a shell with ``venv`` activated has it, without what would
    let the checkout or the test's own environment leak in (user site, PYTHONPATH, pip's
    settings)."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")
           and not name.startswith(("PIP_", "COVERAGE_"))}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1",
               PIP_NO_CACHE_DIR="1")
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Our wheel, built exactly as build/build.py builds dist/wheels/'s, into a temporary folder."""
    out = tmp_path_factory.mktemp("wheel")
    run([*BUILD.PIP, *BUILD.WHEEL_ARGS, "-w", out, "."], "pip wheel (as build/build.py)",
        timeout=PIP_S, cwd=ROOT, env={**os.environ, **BUILD.WHEEL_ENV})
    built = sorted(out.glob("py_vfs-*.whl"))
    assert [path.name for path in built] == [f"py_vfs-{VERSION}-py3-none-any.whl"], built
    return built[0]


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Venv:
    """A fresh virtual environment with the wheel installed by its own pip, from the file."""
    folder = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", folder], "python -m venv", timeout=VENV_S)
    env = Venv(folder, _clean_env(folder))
    env.pip_install(wheel)  # no dependencies: nothing else to find
    return env


def _members(archive: zipfile.ZipFile) -> dict[str, bytes]:
    return {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


def _package_files() -> set[str]:
    """Every file of py_vfs/ in the checkout (the link to docs/shell.md included), as the wheel
    names them."""
    return {path.relative_to(ROOT).as_posix() for path in (ROOT / "py_vfs").rglob("*")
            if (path.is_file() or path.is_symlink()) and "__pycache__" not in path.parts
            and path.suffix != ".pyc"}


def test_the_wheel_holds_the_whole_package_the_reference_and_the_entry_points(wheel):
    with zipfile.ZipFile(wheel) as archive:
        members = _members(archive)
    info = f"py_vfs-{VERSION}.dist-info"
    assert {name for name in members if not name.startswith(f"{info}/")} == _package_files()
    assert members["py_vfs/shell/pages/shell.md"] == REFERENCE  # `man`: the link's target
    points = configparser.ConfigParser(delimiters="=")
    points.optionxform = str  # entry point names keep their case
    points.read_string(members[f"{info}/entry_points.txt"].decode())
    assert dict(points["console_scripts"]) == {"py-vfs": "py_vfs.__main__:main"}
    assert dict(points["fsspec.specs"]) == {"pyvfs": "py_vfs.fsspec_fs:PyVFSFileSystem"}
    metadata = members[f"{info}/METADATA"].decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # No dependency but the extras': fsspec's protocol, the shell's git (dulwich, merge3) and
    # the dock's server (Starlette, uvicorn, psycopg: docs/dock.md).
    assert sorted(requires) == sorted([
        'Requires-Dist: fsspec==2026.9.0 ; extra == "fsspec"',
        'Requires-Dist: dulwich==1.2.21 ; extra == "git"',
        'Requires-Dist: merge3==1.0.0 ; extra == "git"',
        'Requires-Dist: starlette==1.10.0 ; extra == "dock"',
        'Requires-Dist: uvicorn==0.54.0 ; extra == "dock"',
        'Requires-Dist: psycopg==3.3.9 ; extra == "dock"',
        'Requires-Dist: psycopg-binary==3.3.9 ; extra == "dock"']), requires
    assert {"Provides-Extra: fsspec", "Provides-Extra: git", "Provides-Extra: dock"} <= \
        set(metadata.splitlines())


def test_the_sdist_holds_the_package_and_the_reference_and_builds_the_same_wheel(tmp_path):
    """``python -m build`` makes the sdist, then the wheel from it: the link
    py_vfs/shell/pages/shell.md needs docs/shell.md beside it; the site, the tests and the
    build scripts stay out."""
    made = run([sys.executable, "-c", "import sys, flit_core.buildapi as b; "
                "print(b.build_sdist(sys.argv[1]))", tmp_path], "flit_core build_sdist",
               timeout=PIP_S, cwd=ROOT)
    sdist = tmp_path / made.stdout.split()[-1]
    top = f"py_vfs-{VERSION}"
    with tarfile.open(sdist) as archive:
        names = {member.name.removeprefix(f"{top}/") for member in archive.getmembers()
                 if not member.isdir()}
    outside = {name for name in names if not name.startswith("py_vfs/")}
    assert outside == {"PKG-INFO", "pyproject.toml", "README.md", "docs/shell.md"}, outside
    assert {name for name in names if name.startswith("py_vfs/")} == _package_files()

    out = tmp_path / "from-sdist"
    run([*BUILD.PIP, *BUILD.WHEEL_ARGS, "-w", out, sdist], "pip wheel of the sdist",
        timeout=PIP_S, cwd=tmp_path)
    (built,) = out.glob("py_vfs-*.whl")
    with zipfile.ZipFile(built) as archive:
        assert archive.read("py_vfs/shell/pages/shell.md") == REFERENCE


def test_a_fresh_environment_imports_py_vfs_from_the_wheel(venv):
    probe = ("import asyncio, py_vfs; print(py_vfs.__file__); print(py_vfs.__version__)\n"
             "async def main():\n"
             "    vfs = py_vfs.VFS.memory()\n"
             "    await vfs.write_file('/x', b'1')\n"
             "    return await vfs.read_file('/x')\n"
             "print(asyncio.run(main()))")
    lines = venv.run([venv.python, "-c", probe], "import py_vfs").stdout.splitlines()
    assert Path(lines[0]).is_relative_to(venv.folder / "lib"), lines  # not the checkout's
    assert lines[1:] == [VERSION, "b'1'"]


def test_the_console_command_answers_help_and_version(venv):
    version = venv.run([venv.command, "--version"], "py-vfs --version")
    assert version.stdout == f"py-vfs {VERSION}\n"
    usage = venv.run([venv.command, "--help"], "py-vfs --help").stdout
    assert usage.startswith("usage: py-vfs ") and "shell" in usage, usage
    usage = venv.run([venv.command, "shell", "--help"], "py-vfs shell --help").stdout
    assert "--disk FILE" in usage and "-c COMMAND" in usage, usage
    bare = venv.run([venv.command], "py-vfs", check=False)
    assert bare.returncode == 2 and "usage: py-vfs" in bare.stderr, bare


def test_py_vfs_shell_on_a_disk_file_keeps_what_it_wrote(venv, tmp_path):
    disk = tmp_path / "my.db"
    typed = "mkdir /a\necho hi > /a/f\ncat /a/f\n"
    first = venv.run([venv.command, "shell", "--disk", disk], "py-vfs shell (typed lines)",
                     input=typed)
    assert first.stderr == ""
    # The prompts go to stdout too (input() without a terminal); the last one is ended at EOF.
    assert first.stdout.splitlines()[-2:] == ["py_vfs:/$ py_vfs:/$ py_vfs:/$ hi", "py_vfs:/$ "]
    assert disk.is_file()

    # A new process on the same file: the same shell through `py-vfs` and `python -m py_vfs`.
    again = venv.run([venv.command, "shell", "--disk", disk, "-c", "cat /a/f; ls /a"],
                     "py-vfs shell -c")
    assert (again.stdout, again.stderr) == ("hi\nf\n", "")
    module = venv.run([venv.python, "-m", "py_vfs", "shell", "--disk", disk, "-c", "cat /a/f"],
                      "python -m py_vfs shell -c")
    assert module.stdout == "hi\n"
    failed = venv.run([venv.command, "shell", "--disk", disk, "-c", "cat /nope"],
                      "py-vfs shell -c (a failing line)", check=False)
    assert failed.returncode == 1 and "/nope" in failed.stderr, failed

    # `man` reads the shell's reference from the installed package.
    man = venv.run([venv.command, "shell", "--disk", disk, "-c", "man cat"], "py-vfs man cat")
    page = manual.page("cat")
    assert page is not None
    assert man.stdout.rstrip("\n") == page.rstrip("\n"), man.stdout[:400]


def _fsspec_wheel_folder() -> Path:
    for folder in WHEEL_FOLDERS:
        if (folder / BUILD.FSSPEC_WHEEL).is_file():
            return folder
    pytest.fail(f"{BUILD.FSSPEC_WHEEL} is in none of {[str(f) for f in WHEEL_FOLDERS]}: "
                "`.venv/bin/python build/build.py` fetches it (npm test builds first)")


PROBE = """
import sys
from importlib.metadata import entry_points

import fsspec

disk = sys.argv[1]
print(*[point.value for point in entry_points(group="fsspec.specs", name="pyvfs")])
print("pyvfs" in fsspec.available_protocols())
fs = fsspec.filesystem("pyvfs", disk=disk)
print(f"{type(fs).__module__}.{type(fs).__qualname__}")
print(fs.cat_file("/a/f").decode(), end="")
with fsspec.open("pyvfs:///a/g.txt", "w", disk=disk) as f:
    f.write("from fsspec\\n")
fs.close()
"""


def test_the_fsspec_extra_installs_fsspec_and_registers_the_pyvfs_protocol(venv, wheel,
                                                                            tmp_path):
    # Without the extra, nothing but py_vfs: the core has no dependencies.
    absent = venv.run([venv.python, "-c", "import importlib.util as u; "
                       "print(u.find_spec('fsspec'))"], "find fsspec")
    if absent.stdout != "None\n":
        pytest.fail("fsspec is in the new environment before the extra was installed "
                    f"({absent.stdout.strip()}): another test of this module installed it first?")
    venv.pip_install("--find-links", _fsspec_wheel_folder(), f"{wheel}[fsspec]")

    disk = tmp_path / "my.db"
    venv.run([venv.command, "shell", "--disk", disk, "-c", "mkdir /a && echo hi > /a/f"],
             "py-vfs shell -c (writes /a/f)")
    probe = venv.run([venv.python, "-c", PROBE, disk], "fsspec.filesystem('pyvfs') in the venv")
    assert probe.stdout.splitlines() == [
        "py_vfs.fsspec_fs:PyVFSFileSystem", "True", "py_vfs.fsspec_fs.PyVFSFileSystem", "hi"]
    assert probe.stderr == ""
    back = venv.run([venv.command, "shell", "--disk", disk, "-c", "cat /a/g.txt"],
                    "py-vfs shell -c (reads what fsspec wrote)")
    assert back.stdout == "from fsspec\n"
