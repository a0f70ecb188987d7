"""The tree-sitter rules on real parses: each rule fires where it should and nowhere else."""

from __future__ import annotations

import textwrap

import pytest

from fixloop.adapters.safety.catalog import EDITOR_CODES, RULES, explain
from fixloop.adapters.safety.rules import scan

HEADER = textwrap.dedent("""\
    import os, pickle, marshal, yaml, tempfile, shutil, socket, importlib, subprocess
    import urllib.request
    import requests
    from pathlib import Path
    """)


def codes(body: str, path: str = "pkg/mod.py", header: str = HEADER) -> list[str]:
    return [f.code for f in scan(header + textwrap.dedent(body), path)]


POSITIVE = [
    ("FL-S001", "eval(user_input)\n"),
    ("FL-S001", "exec(code, {})\n"),
    ("FL-S001", "x = eval(f'{a} + 1')\n"),
    ("FL-S001", "eval(x for x in y)\n"),
    ("FL-S002", "os.system(cmd)\n"),
    ("FL-S002", "os.system('ls')\n"),
    ("FL-S002", "out = os.popen(cmd).read()\n"),
    ("FL-S003", "subprocess.run(cmd, shell=True)\n"),
    ("FL-S003", "subprocess.Popen(\n    cmd,\n    shell=True,\n)\n"),
    ("FL-S003", "subprocess.check_output(cmd, shell=1)\n"),
    ("FL-S003", "subprocess.getoutput(cmd)\n"),
    ("FL-S004", "pickle.loads(blob)\n"),
    ("FL-S004", "pickle.load(fh)\n"),
    ("FL-S004", "marshal.loads(blob)\n"),
    ("FL-S005", "yaml.load(text)\n"),
    ("FL-S005", "yaml.load(text, Loader=yaml.Loader)\n"),
    ("FL-S005", "yaml.unsafe_load(text)\n"),
    ("FL-S006", "name = tempfile.mktemp()\n"),
    ("FL-S007", "password = 'hunter22'\n"),
    ("FL-S007", "API_KEY = 'sk-live-0123456789'\n"),
    ("FL-S007", "self.auth_token = 'ghp_abcdef123456'\n"),
    ("FL-S007", "connect(host, password='hunter22')\n"),
    ("FL-S007", "config = {'client_secret': 'abcd1234efgh'}\n"),
    ("FL-S007", "def login(user, password='hunter22'):\n    pass\n"),
    ("FL-S008", "open('/etc/hosts', 'w')\n"),
    ("FL-S008", "open('~/.bashrc', mode='a')\n"),
    ("FL-S008", "open(os.path.join(os.path.expanduser('~'), 'x'), 'w')\n"),
    ("FL-S008", "open(Path.home() / '.profile', 'w+')\n"),
    ("FL-S008", "Path('/etc/cron.d/job').write_text('* * * * * x')\n"),
    ("FL-S008", "open(f'/var/tmp/{name}', 'wb')\n"),
    ("FL-S009", "shutil.rmtree('/')\n"),
    ("FL-S009", "shutil.rmtree(Path.home() / 'project')\n"),
    ("FL-S009", "shutil.rmtree(os.environ['HOME'])\n"),
    ("FL-S009", "os.remove('/etc/passwd')\n"),
    ("FL-S010", "requests.get(url)\n"),
    ("FL-S010", "urllib.request.urlopen(url)\n"),
    ("FL-S010", "s = socket.socket()\n"),
    ("FL-S013", "mod = importlib.import_module(name)\n"),
    ("FL-S013", "mod = __import__(name)\n"),
    ("FL-S013", "frame = sys._getframe(1)\n"),
    ("FL-S014", "access = 'user\u202e'\n"),
    ("FL-S015", "os.execv('/bin/true', ['/bin/true'])\n"),
]


@pytest.mark.parametrize("code,body", POSITIVE, ids=[f"{c}-{i}" for i, (c, _) in enumerate(POSITIVE)])
def test_rule_fires(code: str, body: str) -> None:
    assert codes(body) == [code]


NEGATIVE = [
    "obj.eval()\n",
    "model.eval(x)\n",
    "s = 'eval(x)'\n",
    "# eval(x)\n",
    "'''\nos.system(cmd)\n'''\n",
    "eval('1 + 2')\n",
    "exec('import json')\n",
    "subprocess.run(cmd, shell=False)\n",
    "subprocess.run(cmd)\n",
    "subprocess.run(['ls', '-l'], check=True)\n",
    "json.loads(blob)\n",
    "yaml.load(text, Loader=yaml.SafeLoader)\n",
    "yaml.load(text, yaml.CSafeLoader)\n",
    "yaml.safe_load(text)\n",
    "fd, name = tempfile.mkstemp()\n",
    "password = ''\n",
    "password = os.environ['PASSWORD']\n",
    "password = input('Password: ')\n",
    "token_type = 'bearer'\n",
    "password_field = 'password'\n",
    "TOKEN_URL = 'https://example.com/token'\n",
    "api_key = 'API_KEY'\n",
    "GITHUB_TOKEN = 'GITHUB_TOKEN_VAR'\n",
    "password = 'Enter your password'\n",
    "if password == 'hunter22':\n    pass\n",
    "open('/etc/hosts')\n",
    "open('/etc/hosts', 'r')\n",
    "open('out/report.txt', 'w')\n",
    "open('/dev/null', 'w')\n",
    "open(path, 'w')\n",
    "Path('build/x').write_text('y')\n",
    "shutil.rmtree('build')\n",
    "shutil.rmtree(tmp_path / 'x')\n",
    "os.remove(name)\n",
    "session.get(url)\n",
    "data.get('requests')\n",
    "importlib.import_module('json')\n",
    "__import__('json')\n",
    "value = os.path.join(a, b)\n",
]


@pytest.mark.parametrize("body", NEGATIVE)
def test_rule_stays_quiet(body: str) -> None:
    assert codes(body) == []


def test_shell_flag_variable_is_a_warning() -> None:
    findings = scan(HEADER + "subprocess.run(cmd, shell=use_shell)\n", "pkg/mod.py")
    assert [(f.code, f.severity) for f in findings] == [("FL-S003", "warning")]


@pytest.mark.parametrize("header,body,code", [
    ("import subprocess as sp\n", "sp.run(cmd, shell=True)\n", "FL-S003"),
    ("from subprocess import Popen as P\n", "P(cmd, shell=True)\n", "FL-S003"),
    ("from os import system\n", "system(cmd)\n", "FL-S002"),
    ("from os import system as run_command\n", "run_command(cmd)\n", "FL-S002"),
    ("import os as operating_system\n", "operating_system.popen(cmd)\n", "FL-S002"),
    ("import pickle as pk\n", "pk.loads(blob)\n", "FL-S004"),
    ("from pickle import loads as decode\n", "decode(blob)\n", "FL-S004"),
    ("import urllib.request as ur\n", "ur.urlopen(url)\n", "FL-S010"),
    ("from requests import post\n", "post(url, json={})\n", "FL-S010"),
    ("from shutil import rmtree\n", "rmtree('/home/someone')\n", "FL-S009"),
    ("from os import *\n", "system(cmd)\n", "FL-S002"),
    ("import os.path as osp, shutil\n", "shutil.rmtree(osp.expanduser('~/.cache'))\n", "FL-S009"),
    ("from importlib import import_module\n", "import_module(name)\n", "FL-S013"),
    ("import subprocess\nrun = subprocess.run\n", "run(cmd, shell=True)\n", "FL-S003"),
    ("import subprocess\nproc = subprocess\n", "proc.Popen(cmd, shell=True)\n", "FL-S003"),
    ("import os\nshell = os.system\n", "shell(cmd)\n", "FL-S002"),
])
def test_aliases_are_resolved(header: str, body: str, code: str) -> None:
    assert codes(body, header=header) == [code]


def test_yaml_loader_alias_is_resolved() -> None:
    header = "import yaml\nfrom yaml import CSafeLoader as Loader, FullLoader as Safe\n"
    assert codes("yaml.load(text, Loader=Loader)\n", header=header) == []
    assert codes("yaml.load(text, Loader=Safe)\n", header=header) == ["FL-S005"]


def test_alias_resolution_does_not_invent_modules() -> None:
    # `run` and `loads` from elsewhere, and an attribute named like a module, are not the dangerous ones.
    header = "from invoke import run\nfrom json import loads\n"
    assert codes("run(cmd, shell=True)\nloads(blob)\nself.os.system(cmd)\nrequests.get(k)\n", header=header) == []


def test_local_definition_shadows_builtin() -> None:
    assert codes("def eval(expr):\n    return 1\n\neval(x)\n", header="") == []
    assert codes("eval = safe_eval\neval(x)\n", header="") == []
    assert codes("import os\nrun = os.path.join\nrun(a, b)\nsystem = print\nsystem(x)\n", header="") == []


def test_network_rule_applies_to_library_code_only() -> None:
    body = "requests.get(url)\n"
    assert codes(body, path="pkg/client.py") == ["FL-S010"]
    assert codes(body, path="tests/test_client.py") == []


def test_secrets_in_tests_are_warnings() -> None:
    findings = scan("password = 'hunter22'\n", "tests/test_login.py")
    assert [(f.code, f.severity) for f in findings] == [("FL-S007", "warning")]


def test_positions_are_characters() -> None:
    text = "import os\ns = 'é✓'; os.system(cmd)\n"
    [finding] = scan(text, "m.py")
    line = text.splitlines()[1]
    assert (finding.line, finding.end_line) == (2, 2)
    assert line[finding.column : finding.end_column] == "os.system(cmd)"
    assert finding.path == "m.py"


def test_every_finding_has_catalogued_code_and_explanation() -> None:
    found = {f.code for body in POSITIVE for f in scan(HEADER + body[1], "pkg/mod.py")}
    assert found == set(RULES) - {"FL-S012"}  # FL-S012 is about files, not code: see PatchSafety
    for code in RULES:
        assert RULES[code].code == code and len(explain(code)) > 20
        assert RULES[code].severity in ("error", "warning")


@pytest.mark.parametrize("text", [
    "def broken(:\n    eval(x)\n",
    "\x00\x01\x02 eval(\n",
    "s = '\udcff\udcfe'\neval(x)\n",  # undecodable bytes, decoded with surrogateescape
    "",
    "((((((((((" * 500,
    "x = '''" + "eval(x)\n" * 50,
])
def test_bad_input_does_not_crash(text: str) -> None:
    findings = scan(text, "m.py")
    assert all(f.line >= 1 for f in findings)


def test_syntax_error_elsewhere_still_finds_calls() -> None:
    text = "import os\ndef broken(:\n    pass\n\nos.system(cmd)\n"
    assert [f.code for f in scan(text)] == ["FL-S002"]


def test_lone_surrogate_keeps_columns() -> None:
    text = "import os\nx = '\udcff'; os.system(c)\n"
    [finding] = scan(text)
    assert text.splitlines()[1][finding.column : finding.end_column] == "os.system(c)"


def test_editor_codes_leave_out_the_generated_code_rules() -> None:
    text = HEADER + "eval(x)\nrequests.get(u)\nopen('/etc/x', 'w')\n"
    assert [f.code for f in scan(text, "pkg/m.py")] == ["FL-S001", "FL-S010", "FL-S008"]
    assert [f.code for f in scan(text, "pkg/m.py", codes=EDITOR_CODES)] == ["FL-S001"]
    assert EDITOR_CODES == {f"FL-S00{i}" for i in range(1, 8)} | {"FL-S013", "FL-S014"}


def test_scans_from_several_threads_agree() -> None:
    from concurrent.futures import ThreadPoolExecutor

    texts = [HEADER + body for _, body in POSITIVE] * 5
    expected = [scan(t, "pkg/mod.py") for t in texts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda t: scan(t, "pkg/mod.py"), texts))
    assert got == expected
