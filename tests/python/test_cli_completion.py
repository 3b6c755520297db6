"""Shell completion (`opsapi completion bash|zsh|fish`): the scripts load, complete, and
offer every command path, subcommand and option the CLI's parser has, derived here from the
parser itself, so that a new command or option without completion fails."""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

from opsapi import cli  # noqa: E402

SHELLS = ("bash", "zsh", "fish")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, captured.err


def script(capsys, shell: str) -> str:
    code, out, err = run(capsys, "completion", shell)
    assert code == 0, err
    return out


def needs_bash() -> None:
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")


def test_completion_scripts(capsys) -> None:
    for shell in ("bash", "zsh", "fish"):
        code, out, err = run(capsys, "completion", shell)
        assert code == 0, err
        assert "alerts" in out and "measurements" in out and "--profile" in out


def _bash_complete(script: str, words: list[str]) -> list[str]:
    line = " ".join(f"'{w}'" for w in words)
    prog = (
        f"{script}\nCOMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _opsapi; "
        'printf "%s\\n" "${COMPREPLY[@]}"'
    )
    r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return sorted(r.stdout.split())


def test_bash_completion_completes_commands_options_and_values(capsys) -> None:
    needs_bash()
    script = run(capsys, "completion", "bash")[1]
    assert _bash_complete(script, ["opsapi", ""]) == [
        "alerts",
        "capacity",
        "clusters",
        "completion",
        "config",
        "mcp",
        "measurements",
        "projects",
        "sim",
        "store",
        "sync",
    ]
    assert _bash_complete(script, ["opsapi", "--profile", "prod", "al"]) == ["alerts"]
    assert _bash_complete(script, ["opsapi", "alerts", "l"]) == ["list"]
    assert "--granularity" in _bash_complete(script, ["opsapi", "measurements", "fleet", "--"])
    capacity = set(_bash_complete(script, ["opsapi", "capacity", "--"]))
    assert {"--window", "--project", "--granularity", "--output"} <= capacity
    assert "--group" not in capacity  # the old name, still taken, is no longer offered
    assert _bash_complete(script, ["opsapi", "capacity", "--output", ""]) == ["json", "table"]
    assert _bash_complete(script, ["opsapi", "alerts", "list", "--output", ""]) == [
        "csv",
        "json",
        "parquet",
        "table",
    ]
    assert _bash_complete(script, ["opsapi", "completion", ""]) == ["bash", "fish", "zsh"]
    assert _bash_complete(script, ["opsapi", "sync", "--ki"]) == ["--kind"]
    assert _bash_complete(script, ["opsapi", "sync", "--kind", ""]) == ["database", "disk", "host"]
    assert _bash_complete(script, ["opsapi", "store", ""]) == ["check", "info"]


def test_fish_and_zsh_completion_scripts_load(capsys, tmp_path) -> None:
    import shutil

    fish, zsh = shutil.which("fish"), shutil.which("zsh")
    if not fish and not zsh:
        pytest.skip("neither fish nor zsh is installed")
    if fish:
        path = tmp_path / "opsapi.fish"
        path.write_text(run(capsys, "completion", "fish")[1])
        r = subprocess.run(
            [fish, "--no-config", "-c", f"source {path}; complete -C 'opsapi alerts '"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert r.returncode == 0, r.stderr
        words = {line.split("\t")[0] for line in r.stdout.splitlines()}
        assert {"list", "ack", "unack", "open"} <= words
    if zsh:
        path = tmp_path / "_opsapi"
        path.write_text(run(capsys, "completion", "zsh")[1])
        r = subprocess.run([zsh, "-n", str(path)], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr


# ---- everything the parser has, in every shell's script ------------------------------------


def parser_tree() -> dict[tuple[str, ...], tuple[set[str], set[str]]]:
    """Every command path of the CLI's parser (``()``, ``("alerts",)``, ...): the words that
    can follow it (subcommands, a positional's choices) and its options, read from argparse."""
    tree: dict[tuple[str, ...], tuple[set[str], set[str]]] = {}

    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        words: set[str] = set()
        options: set[str] = set()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    words.add(name)
                    walk(sub, (*path, name))
            elif action.option_strings and action.help != argparse.SUPPRESS:  # not hidden
                options.update(action.option_strings)
            elif action.choices:
                words.update(str(c) for c in action.choices)
        tree[path] = (words, options)

    walk(cli.build_parser(), ())
    return tree


TREE = parser_tree()


def test_the_parser_walk_sees_the_cli() -> None:
    assert TREE[()][0] == {
        "alerts", "capacity", "clusters", "measurements", "config", "completion", "projects",
        "sim", "store", "sync", "mcp",
    }  # fmt: skip
    assert {"--profile", "--output", "-o"} <= TREE[()][1]  # the global options
    assert ("alerts", "ack") in TREE and "--yes" in TREE[("alerts", "ack")][1]


def _sh_tables(text: str) -> dict[tuple[str, ...], tuple[set[str], set[str]]]:
    """The words and options bash's or zsh's script gives for each command path of TREE, read
    by running its own table functions in bash (the same POSIX ``case`` in both)."""
    queries = "".join(
        f"echo \"@@ {' '.join(path)}\"; _opsapi_words '{''.join(' ' + w for w in path)}'; echo;"
        f" echo @@; _opsapi_opts '{''.join(' ' + w for w in path)}'; echo;"
        for path in TREE
    )
    prog = "compdef() { :; }; complete() { :; }\n" + text + "\n" + queries
    r = subprocess.run(["bash", "-c", prog], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    out = r.stdout.split("@@")[1:]
    got = {}
    for path, words, options in zip(TREE, out[0::2], out[1::2]):
        name, _, words = words.partition("\n")
        assert name.strip() == " ".join(path)
        got[path] = (set(words.split()), set(options.split()))
    return got


def _fish_tokens(line: str) -> list[str]:
    """Words of one fish command line: bare, or single-quoted with \\' and \\\\ escapes."""
    tokens, i = [], 0
    while i < len(line):
        if line[i] == " ":
            i += 1
            continue
        word = ""
        while i < len(line) and line[i] != " ":
            if line[i] == "'":
                i += 1
                while line[i] != "'":
                    if line[i] == "\\" and line[i + 1] in "\\'":
                        i += 1
                    word += line[i]
                    i += 1
                i += 1
            else:
                word += line[i]
                i += 1
        tokens.append(word)
    return tokens


def _fish_tables(text: str) -> dict[tuple[str, ...], tuple[set[str], set[str]]]:
    """The words and options fish's ``complete -c opsapi -n '__opsapi_at PATH' ...`` lines
    give for each command path."""
    got: dict[tuple[str, ...], tuple[set[str], set[str]]] = {}
    for line in text.splitlines():
        tokens = _fish_tokens(line)
        if tokens[:3] != ["complete", "-c", "opsapi"] or "-n" not in tokens:
            continue
        condition = _fish_tokens(tokens[tokens.index("-n") + 1])
        assert condition[0] == "__opsapi_at", line
        path = tuple(condition[1].split()) if len(condition) > 1 else ()
        words, options = got.setdefault(path, (set(), set()))
        pairs = list(zip(tokens, tokens[1:]))
        words.update(v for k, v in pairs if k == "-a" and "-x" not in tokens)
        options.update("--" + v for k, v in pairs if k == "-l")
        options.update("-" + v for k, v in pairs if k == "-s")
    return got


@pytest.mark.parametrize("shell", SHELLS)
def test_every_command_and_option_of_the_parser_completes(capsys, shell) -> None:
    text = script(capsys, shell)
    if shell == "fish":
        got = _fish_tables(text)
    else:
        needs_bash()
        got = _sh_tables(text)
    for path, (words, options) in TREE.items():
        shown_words, shown_options = got.get(path, (set(), set()))
        where = "opsapi " + " ".join(path)
        assert shown_words == words, (shell, where, words ^ shown_words)
        assert shown_options == options, (shell, where, options ^ shown_options)


def test_project_alerts_and_show_complete(capsys, tmp_path) -> None:
    """The scope flags of ``alerts list|ack|unack``, ``alerts show`` with its options, and a
    file name after ``--chart``."""
    needs_bash()
    script = run(capsys, "completion", "bash")[1]
    assert "show" in _bash_complete(script, ["opsapi", "alerts", ""])
    for command in ("list", "ack", "unack"):
        options = _bash_complete(script, ["opsapi", "alerts", command, "--"])
        assert {"--global", "--project", "--all-projects"} <= set(options), command
    show = _bash_complete(script, ["opsapi", "alerts", "show", "--"])
    assert {"--project", "--context", "--chart", "--before", "--after", "--granularity"} <= set(
        show
    )
    (tmp_path / "alert.html").write_text("")
    words = [
        "opsapi", "alerts", "show", "A1", "--context", "--chart", str(tmp_path / "al"),
    ]  # fmt: skip
    assert _bash_complete(script, words) == [str(tmp_path / "alert.html")]


def test_bash_completes_a_store_folder_as_a_file_name(capsys, tmp_path, monkeypatch) -> None:
    needs_bash()
    (tmp_path / "fleet-store").mkdir()
    monkeypatch.chdir(tmp_path)
    script = run(capsys, "completion", "bash")[1]
    assert _bash_complete(script, ["opsapi", "sync", "fle"]) == ["fleet-store"]
    assert _bash_complete(script, ["opsapi", "store", "info", "fle"]) == ["fleet-store"]
