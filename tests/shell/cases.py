"""The shell conformance suite's data: the tree the cases run on and the command lines.

Both sides read this module: ``tests/shell/generate.py`` builds ``TREE`` in a temporary
directory, runs every line of ``CASES`` with GNU bash and coreutils and writes what they printed
to ``tests/shell/expected.json``; ``tests/unit/test_shell_conformance.py`` builds the same tree
at ``ROOT`` on a memory VFS and runs each line through our shell.

Rules for a case (so bash's answer is the same on every machine):
- the output must not depend on the time, the user, the host or the file system: no `ls -l` of
  files the case creates, no `du` of directories (block sizes), no `date` without `-d`/`-r`;
  a listing whose order is the file system's (`find`, `grep -r`, `tar`, `zip -r`) is piped
  through `sort`;
- not here, for want of a comparable bash answer: the VFS's own commands (`sql`, `log`,
  `snapshot(s)`, `restore`, `import`, `export ARCHIVE`, `mount`, `umount`, `serve`, `open`,
  `fsck`, `scoop`), what depends on the host or a terminal (`df`, `clear`, `history`, `help`,
  `tail -f`, colors), and `which` of a command that exists (bash finds /usr/bin/NAME, ours a
  builtin); unit and e2e tests cover those;
- a case id is ``TOPIC-NN``: append a new case at the end of its group, never renumber (the
  test's KNOWN_FAILURES and DIFFERENCES name cases by id), then run ``generate.py``.
"""

from __future__ import annotations

# The directory the cases run in: the VFS path, and what generate.py writes in place of its
# temporary directory in bash's output. $HOME is the same directory.
ROOT = "/work"

# Every file and directory below has this modification time (2023-11-14 22:13:20 UTC).
MTIME = 1_700_000_000

LINES = "".join(f"line {n}\n" for n in range(1, 21))

# path relative to ROOT -> bytes (a file), None (a directory), ("->", target) (a symlink).
TREE: dict[str, bytes | tuple[str, str] | None] = {
    "a.txt": b"alpha\nbeta\ngamma\n",
    "b.txt": b"one\ntwo\nthree\ntwo\none\n",
    "empty.txt": b"",
    "nonl.txt": b"no final newline",
    "numbers.txt": b"10\n9\n100\n-3\n2.5\n9\n",
    "words.txt": b"banana\napple\nCherry\napple\nbanana\ndate\n",
    "fruits.csv": b"name,color,count\napple,red,3\nbanana,yellow,12\ncherry,red,7\ndate,brown,0\n",
    "lines.txt": LINES.encode(),
    "v1.txt": b"a\nb\nc\nd\n",
    "v2.txt": b"a\nB\nc\nd\ne\n",
    "my file.txt": b"spaces in the name\n",
    "h\u00e9llo.txt": "unicode: h\u00e9llo w\u00f6rld \u2713\n".encode(),
    "bin.dat": b"\x00\x01\x02\x03BIN\xff\xfe\n\x7fELF\x00tail\n",
    "data.json": b'{"name": "py_vfs", "version": 1, "tags": ["fs", "shell"], '
                 b'"nested": {"k": [1, 2, 3]}}\n',
    "script.sh": b'GREETING=hello\ngreet() { echo "$GREETING, $1"; }\n',
    ".hidden": b"dot file\n",
    "link.txt": ("->", "a.txt"),
    "dir": None,
    "dir/c.md": b"# Title\n\nSome text here.\nalpha again\n",
    "dir/d.py": b"print('hi')\n",
    "dir/empty": None,
    "dir/sub": None,
    "dir/sub/deep.txt": b"deep alpha\n",
    "dir/sub/.secret": b"s\n",
    "src": None,
    "src/main.py": b"import util\n\n\ndef main():\n    print(util.VALUE)\n",
    "src/util.py": b"VALUE = 42\n# TODO: more\n",
    "src/lib": None,
    "src/lib/helpers.js": b"export const x = 1;\n// TODO later\n",
}

# Topics whose cases run in a UTF-8 locale (LC_ALL=C.UTF-8), as in a terminal: `tree` draws
# its guides with box-drawing characters there (`├──`), and with ASCII (`|--`) in the C locale.
UTF8_TOPICS = {"tree"}

# Who routes a failing case: lang (the language and the shell builtins), text (text and
# data-stream commands), files (file-tree commands).
OWNERS: dict[str, str] = {}
CASES: dict[str, str] = {}


def _group(topic: str, owner: str, lines: list[str]) -> None:
    for number, line in enumerate(lines, 1):
        case = f"{topic}-{number:02d}"
        CASES[case] = line
        OWNERS[case] = owner


_group("quoting", "lang", [
    "echo 'single  quoted'  \"double  quoted\"  un   quoted",
    "echo \"a\\\"b\" 'c\\d' e\\ f",
    "echo ''; echo \"\" x",
    "printf '[%s]\\n' '' \"\" x",
    "echo 'it'\\''s'",
    "echo \\$HOME '$HOME' \"\\$HOME\"",
    "echo \"a\\\\b\" \"a\\nb\"",
    "echo a#b #comment",
    "echo $'a\\tb'",
    "echo 'unterminated",
    "x='a  b'; echo $x; echo \"$x\"",
    "printf '%s\\n' \"a b\" c",
    "echo \"semi;colon\" 'pipe|amp&' \\>",
    "echo \"multi\nline\"",
    "echo \"unterminated",
    "X='a:b:c'; IFS=:; echo $X",
])

_group("vars", "lang", [
    "X=1; echo $X ${X} \"${X}x\" ${X}x",
    "echo ${UNSET:-default} ${UNSET-dflt2}",
    "X=; echo \"[${X:-empty}]\" \"[${X-set}]\"",
    "echo ${X:=assigned}; echo $X",
    "X=val; echo ${X:+alt} [${UNSET:+alt}]",
    "X=hello; echo ${#X}",
    "F=archive.tar.gz; echo ${F%.*} ${F%%.*} ${F#*.} ${F##*.}",
    "X=abcabc; echo ${X/b/B} ${X//b/B}",
    "echo $HOME",
    "echo ~ ~/dir",
    "cd dir && echo $PWD",
    "cd dir; cd ..; echo $OLDPWD",
    "cd dir; cd -; pwd",
    "cd -",
    "X=1; unset X; echo \"[$X]\"",
    "export GREETING=hi; printenv GREETING",
    "GREETING=hi printenv GREETING; echo \"[$GREETING]\"",
    "X=local; printenv X; echo status $?",
    "export X=1; env | grep '^X='",
    "env Y=2 printenv Y",
    "printenv HOME",
    "set -u; echo $NOPE; echo after",
    "echo $?; false; echo $?; true; echo $?",
    "false; X=$?; echo $X",
    "set -- a b c; echo $# $1 $3; shift; echo $@",
    "set -- 'a b' c; for x in \"$@\"; do echo \"[$x]\"; done",
    "set -- 'a b' c; for x in $@; do echo \"[$x]\"; done",
    "set -- 'a b' c; for x in \"$*\"; do echo \"[$x]\"; done",
    "unset NOPE; echo ${NOPE:-$HOME}",
    "A=1 B=2; echo $A$B",
    "echo \"${X:-\"quoted default\"}\"",
    "x=3; echo ${x}rd $xrd.",
    "echo $UNDEFINED_VAR end; echo \"$UNDEFINED_VAR\" end",
    "echo $#",
    "export A=1 B=2; unset A; printenv A B; echo $?",
    "unset HOME; cd; echo $?",
    "X=outer; X=inner env | grep '^X='; echo $X",
    "printenv NOPE; echo $?",
])

_group("arith", "lang", [
    "echo $((2+3*4)) $(((2+3)*4)) $((7/2)) $((7%3)) $((-7/2))",
    "echo $((2**10)) $((1<<4)) $((0x10)) $((010))",
    "x=5; echo $((x*2)) $(($x+1))",
    "x=5; echo $((x+=1)); echo $x",
    "echo $((3>2)) $((3<2)) $((1==1)) $((1!=1)) $((1&&0)) $((1||0)) $((!0))",
    "echo $((1/0)); echo after",
    "i=0; ((i++)); echo $i",
    "echo $(( 10 > 3 ? 1 : 2 ))",
    "echo $((9223372036854775807 + 1))",
    "echo $(( 5 & 3 )) $(( 5 | 3 )) $(( 5 ^ 3 )) $(( ~5 ))",
    "echo $((1+))",
    "echo $((unset_var + 2))",
    "x=7; y=3; echo $(( (x - y) * (x + y) ))",
    "n=$(wc -l < b.txt); echo $((n * 2))",
])

_group("cmdsub", "lang", [
    "echo \"[$(echo hi)]\"",
    "X=$(printf 'a\\nb\\n\\n'); echo \"[$X]\"",
    "echo $(echo a; echo b)",
    "echo \"$(echo a; echo b)\"",
    "echo `echo back tick`",
    "echo $(cat a.txt | wc -l)",
    "echo $(echo $(echo nested))",
    "x=$(false); echo $?",
    "echo $(ls dir)",
    "echo \"$(cat nope)\" status $?",
    "for w in $(cat b.txt); do printf '%s,' \"$w\"; done; echo",
    "echo $(",
])

_group("glob", "lang", [
    "echo *.txt",
    "echo ?.txt",
    "echo [ab].txt",
    "echo [!a].txt",
    "echo [^a].txt",
    "echo dir/*",
    "echo */",
    "echo *.nomatch",
    "echo .*",
    "echo d*/s*/*",
    "echo '*.txt' \"*.txt\" \\*.txt",
    "echo **/*.txt",
    "echo dir/**",
    "echo **/*.py",
    "echo src/**/*.js",
    "echo **/",
    "ls *.md",
    "echo dir/sub/.*",
    "echo [a-c]*.txt",
    "echo *' '*",
    "for f in *.csv; do echo \"$f\"; done",
    "X='*.csv'; echo $X; echo \"$X\"",
    "echo dir/*/",
    "echo *.{txt,csv}",
])

_group("brace", "lang", [
    "echo {a,b,c}",
    "echo x{1,2}y",
    "echo {1..5}",
    "echo {a..e}",
    "echo {5..1}",
    "echo {1..10..3}",
    "echo {a,b}{1,2}",
    "echo {a,{b,c}}",
    "echo '{a,b}' {a} {}",
    "mkdir -p new/{x,y}/z && ls new new/x",
    "echo {01..03}",
    "echo a{,b}",
])

_group("heredoc", "lang", [
    "cat <<EOF\nhello\n$HOME\nEOF",
    "cat <<'EOF'\n$HOME $(x)\nEOF",
    "cat <<-EOF\n\tindented\n\tEOF",
    "cat <<EOF | wc -l\na\nb\nEOF",
    "X=1; cat <<EOF\nx=$X $((X+1))\nEOF",
    "cat <<< 'here string'",
    "wc -l <<EOF\n1\n2\n3\nEOF",
    "cat <<EOF\nunterminated",
    "cat <<EOF > out.txt\nfile\nEOF\ncat out.txt",
    "cat <<\"END\"\n`not run` $X\nEND\necho next",
])

_group("redir", "lang", [
    "echo hi > out.txt; cat out.txt",
    "echo a > f; echo b >> f; cat f",
    "cat < a.txt",
    "wc -l < a.txt",
    "cat nope 2> err.txt; cat err.txt",
    "cat nope 2>&1",
    "cat a.txt nope > out 2>&1; cat out",
    "cat nope 2>&1 > out; echo ---; cat out",
    "cat a.txt nope &> both; cat both",
    "echo x >| f; cat f",
    "echo to err >&2",
    "echo x > dir",
    "echo x > nodir/f; echo $?",
    "cat < nope; echo $?",
    "echo x > *.txt",
    "> new.txt; wc -c new.txt",
    "cat nope 2>/dev/null; echo $?",
    "{ echo a; echo b; } > grp.txt; cat grp.txt",
    "(echo sub; echo shell) | wc -l",
    "(cd dir; pwd); pwd",
    "echo one two | tee t.txt | wc -w; cat t.txt",
    "cat a.txt >> a.txt",
    "echo x 1>&2 2>/dev/null",
    "ls nope a.txt 2>&1 | sort",
])

_group("pipe", "lang", [
    "cat a.txt | wc -l",
    "printf 'b\\na\\nc\\n' | sort | head -2",
    "echo hi | cat | cat | cat",
    "yes | head -n 3",
    "seq 100000 | tail -1",
    "false | true; echo $?",
    "true | false; echo $?",
    "set -o pipefail; false | true; echo $?",
    "set -o pipefail; true | true; echo $?",
    "! true; echo $?",
    "! false; echo $?",
    "! echo hi | grep -q x; echo $?",
    "cat nope | wc -c",
    "ls | grep txt | sort -r | head -3",
    "nosuchcmd | cat; echo $?",
    "echo a | nosuchcmd; echo $?",
    "seq 10000 | grep -c 7",
    "cat bin.dat | wc -c",
])

_group("list", "lang", [
    "true && echo yes || echo no",
    "false && echo yes || echo no",
    "false || false || echo third",
    "cd nope && echo moved; pwd",
    "true; false; echo $?",
    "exit 3",
    "echo before; exit 5; echo after",
    "false; exit",
    "(exit 300); echo $?",
    "set -e; false; echo not reached",
    "| cat",
    "echo a &&",
    "echo a ;;",
    "echo (",
    "nosuchcmd",
    "echo a; ; echo b",
])

_group("flow", "lang", [
    "if true; then echo yes; else echo no; fi",
    "if false; then echo 1; elif true; then echo 2; else echo 3; fi",
    "if [ -f a.txt ]; then echo file; fi",
    "if grep -q beta a.txt; then echo found; fi",
    "for i in 1 2 3; do echo $i; done",
    "for f in dir/*; do echo \"$f\"; done",
    "for i in $(seq 3); do echo -n $i; done; echo",
    "for i in {1..3}; do for j in a b; do echo $i$j; done; done",
    "i=0; while [ $i -lt 3 ]; do echo $i; i=$((i+1)); done",
    "i=0; until [ $i -ge 2 ]; do echo $i; i=$((i+1)); done",
    "for i in 1 2 3 4 5; do if [ $i = 3 ]; then continue; fi; if [ $i = 5 ]; then break; fi; "
    "echo $i; done",
    "while read line; do echo \"got $line\"; done < a.txt",
    "cat b.txt | while read -r w; do echo \"[$w]\"; done",
    "while IFS=, read -r n c k; do echo \"$n:$k\"; done < fruits.csv",
    "if then",
    "for x in a b; do echo $x",
    "if true; then fi",
    "for i in; do echo never; done; echo done",
    "if false; then echo; fi; echo $?",
    "fi",
    "for i in 1 2; do\n  echo \"line $i\"\ndone",
    "n=0; while true; do n=$((n+1)); [ $n -ge 4 ] && break; done; echo $n",
    "read x < a.txt; echo $x",
    "echo 'a b c' | { read x y; echo \"$y\"; }",
])

_group("case", "lang", [
    "x=2; case $x in 1) echo one;; 2) echo two;; *) echo other;; esac",
    "case hello.txt in *.md) echo md;; *.txt) echo text;; esac",
    "case B in [a-z]) echo lower;; [A-Z]) echo upper;; esac",
    "case x in a|x|y) echo alt;; esac",
    "case nothing in a) echo a;; esac; echo $?",
    "for f in *.txt; do case $f in a*) echo \"A: $f\";; *) ;; esac; done",
    "case x in",
    "case 'a b' in 'a b') echo quoted;; esac",
])

_group("func", "lang", [
    "greet() { echo \"hello $1\"; }; greet world",
    "function f { echo \"args: $#\"; }; f a b c",
    "f() { return 3; }; f; echo $?",
    "f() { local x=inner; echo $x; }; x=outer; f; echo $x",
    "f() { echo \"$@\"; }; f 'a b' c",
    "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; "
    "fact 5",
    "f() { echo in f; }; f | tr a-z A-Z",
    "f() { x=changed; }; x=orig; f; echo $x",
    "source script.sh; greet world",
    ". ./script.sh; echo $GREETING",
    "source nope.sh; echo $?",
    "f() { shift; echo $1; }; f a b",
    "local x=1",
    "return",
    "f() { echo $1; }; f",
    "f() {\n  echo multi\n}\nf",
])

_group("test", "lang", [
    "test -f a.txt; echo $?",
    "test -d dir && echo dir",
    "[ -e nope ]; echo $?",
    "[ -s empty.txt ]; echo $?",
    "[ -s a.txt ]; echo $?",
    "[ -L link.txt ] && echo link",
    "[ -x script.sh ]; echo $?",
    "[ abc = abc ] && echo eq",
    "[ abc != abd ] && echo ne",
    "[ -z '' ] && [ -n x ] && echo ok",
    "[ 2 -lt 10 ] && echo lt; [ 2 \\< 10 ] || echo 'not string-less'",
    "[ 5 -eq 5 -a 3 -ne 4 ]; echo $?",
    "[ ! -f nope ] && echo missing",
    "test 1 -gt; echo $?",
    "[ -d dir ] && [ ! -d a.txt ]; echo $?",
    "[ 1 -eq a ]; echo $?",
    "[ x; echo $?",
    "test; echo $?",
    "[[ abc == a* ]] && echo glob",
    "[[ -f a.txt && -d dir ]] && echo both",
    "[ -f dir ] || [ -d dir ] && echo or",
    "[ 3 -ge 3 ] && [ 4 -gt 3 ] && [ 2 -le 3 ]; echo $?",
    "test a.txt -nt nope; echo $?",
    "[ -e link.txt ] && [ -h link.txt ]; echo $?",
])

_group("builtin", "lang", [
    "true; echo $?",
    "false; echo $?",
    ":; echo $?",
    "type cd echo",
    "type nosuch; echo $?",
    "type -t cd",
    "f() { :; }; type -t f",
    "alias ll='ls -l'; alias ll",
    "alias nope; echo $?",
    "eval 'echo hi; echo there'",
    "cd dir/sub && pwd",
    "cd nope",
    "cd a.txt",
    "cd; pwd",
    "cd /; pwd",
    "cd dir/../src; pwd",
    "cd a b",
    "pwd",
    "cd dir; cd sub; cd ../..; pwd",
    "which nosuch; echo $?",
    "unset nope; echo $?",
    "export 1x=2; echo $?",
])

_group("cat", "text", [
    "cat a.txt b.txt",
    "cat nonl.txt a.txt",
    "cat nope a.txt; echo $?",
    "cat dir",
    "cat -n a.txt",
    "cat 'my file.txt' h\u00e9llo.txt",
    "echo piped | cat - a.txt",
    "cat link.txt",
    "cat empty.txt; echo $?",
    "cat -n nonl.txt b.txt",
    "cat -x a.txt",
    "cat -A bin.dat",
    "cat -v bin.dat",
    "cat -b a.txt",
    "printf 'a\\tb\\n\\n\\n\\nc\\n' | cat -sT",
    "cat -E nonl.txt a.txt",
    "printf 'x\\n\\n' | cat -bs - nonl.txt",
])

_group("echo", "text", [
    "echo -n no newline",
    "echo -e 'a\\tb\\nc'",
    "echo -E 'a\\tb'",
    "echo -- -n",
    "echo --help",
    "echo a   b    c",
    "echo -n",
    "echo -e 'x\\c y'; echo",
    "echo -ne 'a\\n'",
    "echo -e '\\x41\\0102'",
])

_group("printf", "text", [
    "printf '%s-%s\\n' a b c d",
    "printf '%d %5d|%-5d|%05d\\n' 42 42 42 42",
    "printf '%x %o %X\\n' 255 8 255",
    "printf '%.2f %10.3f\\n' 3.14159 2.5",
    "printf 'no newline'",
    "printf '%s\\n'",
    "printf '%c%c\\n' hello world",
    "printf '%d\\n' abc",
    "printf 'a\\tb\\\\n\\n'",
    "printf '%%\\n'",
    "printf '%5s|%-5s|\\n' ab cd",
    "printf '%b\\n' 'x\\ty'",
    "printf '%s %s\\n' one",
    "printf",
    "printf '\\200\\xff\\101' | xxd -p",
])

_group("grep", "text", [
    "grep beta a.txt",
    "grep -i BETA a.txt",
    "grep -n a a.txt",
    "grep -c two b.txt",
    "grep -v two b.txt",
    "grep -w app words.txt; echo $?",
    "grep -x apple words.txt",
    "grep -E 'ap+le|Cherry' words.txt",
    "printf 'a.b\\naxb\\n' | grep -F a.b",
    "printf 'a.b\\naxb\\n' | grep a.b",
    "grep -o an words.txt",
    "grep -l alpha a.txt b.txt dir/c.md",
    "grep -L alpha a.txt b.txt dir/c.md",
    "grep -r alpha . | sort",
    "grep -rn alpha dir | sort",
    "grep -rl TODO . | sort",
    "grep -r --include='*.py' TODO . | sort",
    "grep -r --exclude='*.py' TODO . | sort",
    "grep -A1 beta a.txt",
    "grep -B1 beta a.txt",
    "grep -C1 -E '^line (5|9)$' lines.txt",
    "grep nomatch a.txt; echo $?",
    "grep x nope; echo $?",
    "grep BIN bin.dat; echo $?",
    "grep -r ELF . | sort",
    "grep -c '' empty.txt nonl.txt",
    "grep -e beta -e gamma a.txt",
    "grep",
    "grep -q beta a.txt && echo found",
    "echo hello | grep -o l",
    "grep -rin ALPHA dir | sort",
    "grep '[' a.txt; echo $?",
    "grep -E '(a|b' a.txt; echo $?",
    "grep -wc apple words.txt",
    "grep -xvn apple words.txt",
    "grep -h alpha a.txt dir/c.md",
    "grep alpha dir; echo $?",
    "grep -F -x -e apple -e date words.txt",
    "grep -n '' nonl.txt",
    "grep -A2 -n line.1 lines.txt",
    "grep -ri 'the' . | sort",
    "grep -I -r ELF .; echo $?",
    "grep -I -c ELF bin.dat a.txt; echo $?",
])

_group("head", "text", [
    "head -n 3 lines.txt",
    "head -3 lines.txt",
    "head lines.txt",
    "head -c 10 a.txt",
    "head -n -17 lines.txt",
    "head a.txt b.txt",
    "head nope; echo $?",
    "seq 10 | head -n 2",
    "head -n 0 a.txt; echo $?",
    "head -n 2 nonl.txt",
    "head -n x a.txt",
])

_group("tail", "text", [
    "tail -n 3 lines.txt",
    "tail -3 lines.txt",
    "tail -n +18 lines.txt",
    "tail -c 6 a.txt",
    "tail lines.txt",
    "tail nonl.txt",
    "tail -n 1 a.txt b.txt",
    "seq 5 | tail -n 2",
    "tail nope; echo $?",
    "tail -c +3 a.txt",
    "tail +18 lines.txt",
    "tail +3 a.txt b.txt",
])

_group("wc", "text", [
    "wc a.txt",
    "wc -l a.txt b.txt",
    "wc -w words.txt",
    "wc -c bin.dat",
    "wc < a.txt",
    "echo hello world | wc",
    "wc nonl.txt",
    "wc empty.txt",
    "wc nope; echo $?",
    "wc -lwc a.txt",
    "wc -l *.txt",
    "wc - < a.txt",
    "cat a.txt | wc",
    "wc a.txt - < lines.txt",
])

_group("sort", "text", [
    "sort words.txt",
    "sort -r words.txt",
    "sort -u words.txt",
    "sort -n numbers.txt",
    "sort -rn numbers.txt",
    "sort -t, -k2 fruits.csv",
    "sort -t, -k3 -n fruits.csv",
    "sort -t, -k3,3nr fruits.csv",
    "sort b.txt a.txt",
    "printf 'b 2\\na 10\\nc 1\\n' | sort -k2 -n",
    "sort nope; echo $?",
    "sort -u -r b.txt",
    "sort numbers.txt",
    "sort nonl.txt a.txt",
    "sort -k2 -t, -u fruits.csv",
])

_group("uniq", "text", [
    "uniq b.txt",
    "sort b.txt | uniq",
    "sort b.txt | uniq -c",
    "sort words.txt | uniq -d",
    "sort words.txt | uniq -c | sort -rn",
    "uniq -c words.txt",
    "printf 'a\\na\\nb\\na\\n' | uniq",
    "uniq nope; echo $?",
])

_group("cut", "text", [
    "cut -d, -f1 fruits.csv",
    "cut -d, -f1,3 fruits.csv",
    "cut -d, -f2- fruits.csv",
    "cut -c1-3 words.txt",
    "cut -c2 a.txt",
    "echo a:b:c | cut -d: -f2",
    "printf 'x\\ty\\tz\\n' | cut -f2",
    "cut -d, -f5 fruits.csv",
    "cut a.txt",
    "echo 'no delim' | cut -d, -f2",
])

_group("tr", "text", [
    "echo hello | tr a-z A-Z",
    "echo hello | tr -d l",
    "echo 'a  b   c' | tr -s ' '",
    "echo hello | tr el ip",
    "tr -d '\\n' < a.txt; echo",
    "echo hello | tr '[:lower:]' '[:upper:]'",
    "tr a",
    "echo abc | tr -c a x; echo",
    "echo 'a,b,c' | tr , '\\n'",
    "tr -d a b",
    "tr -ds a",
    "tr -s a b c",
])

_group("tee", "text", [
    "echo hi | tee t1.txt t2.txt; cat t1.txt t2.txt",
    "echo more | tee -a a.txt > /dev/null; tail -1 a.txt",
    "echo x | tee dir; echo $?",
    "seq 3 | tee s.txt | wc -l; cat s.txt",
])

_group("xargs", "text", [
    "echo a b c | xargs echo",
    "printf 'a\\nb\\nc\\n' | xargs -n 1 echo x",
    "printf 'a\\nb\\n' | xargs -I{} echo '<{}>'",
    "printf 'a.txt\\0b.txt\\0' | xargs -0 wc -l",
    "echo a.txt b.txt | xargs cat",
    "echo | xargs echo empty",
    "echo 1 2 3 4 | xargs -n 2",
    "echo nope | xargs cat; echo $?",
    "printf 'my file.txt\\0' | xargs -0 cat",
    "printf 'a\\nb\\n' | xargs -I % echo [%]",
])

_group("sed", "text", [
    "sed 's/a/A/' a.txt",
    "sed 's/a/A/g' a.txt",
    "sed -n '2p' a.txt",
    "sed '2d' a.txt",
    "sed -n '/beta/p' a.txt",
    "sed '/beta/d' a.txt",
    "sed 's/\\(al\\)pha/\\1ways/' a.txt",
    "sed -E 's/(b)(e)/\\2\\1/' a.txt",
    "sed -i 's/alpha/ALPHA/' a.txt; cat a.txt",
    "sed -n '$p' a.txt",
    "sed '1,2s/^/> /' a.txt",
    "echo /a/b/c | sed 's|/|_|g'",
    "sed -e 's/a/1/' -e 's/b/2/' a.txt",
    "sed -n 's/beta/BETA/p' a.txt",
    "echo hello | sed 's/l/L/2'",
    "sed p a.txt",
    "sed -n '2,$p' lines.txt | head -3",
    "sed 's/a/b' a.txt",
    "sed -i -e 's/one/1/g' b.txt; cat b.txt",
    "sed 's/[0-9]\\+/N/' numbers.txt",
    "sed 's/x/y/' nope; echo $?",
    "sed '3q' lines.txt",
    "sed 's/$/!/' nonl.txt",
    "sed = a.txt",
    "sed -i.bak 's/a/b/' a.txt; cat a.txt.bak a.txt",
    "sed -ni.orig '2p' a.txt; cat a.txt.orig a.txt",
    "sed -i'bak_*' 's/a/b/' a.txt; cat bak_a.txt",
    "sed --in-place=.old -e 's/e/E/' b.txt; cat b.txt.old b.txt",
])

_group("diff", "text", [
    "diff v1.txt v2.txt; echo $?",
    "diff -u v1.txt v2.txt",
    "diff a.txt a.txt; echo $?",
    "diff a.txt nope; echo $?",
    "diff -u a.txt b.txt | tail -n +3",
    "diff nonl.txt a.txt",
    "diff -u empty.txt a.txt | tail -n +3",
    "echo beta | diff - a.txt",
])

_group("cmp", "text", [
    "cmp a.txt a.txt; echo $?",
    "cmp a.txt b.txt; echo $?",
    "cmp v1.txt v2.txt",
    "cmp a.txt nope; echo $?",
    "cmp empty.txt a.txt",
    "cmp -s a.txt b.txt; echo $?",
])

_group("seq", "text", [
    "seq 5",
    "seq 2 5",
    "seq 1 2 10",
    "seq 5 -1 1",
    "seq -s, 5",
    "seq -w 8 10",
    "seq 0; echo $?",
    "seq 1.5 0.5 3",
    "seq x",
])

_group("base64", "text", [
    "echo hello | base64",
    "echo aGVsbG8K | base64 -d",
    "base64 bin.dat",
    "base64 lines.txt",
    "base64 -w 0 a.txt; echo",
    "echo '!!!' | base64 -d; echo $?",
    "base64 nope; echo $?",
    "base64 -w 4 a.txt",
])

_group("sum", "text", [
    "sha256sum a.txt b.txt",
    "md5sum a.txt",
    "echo -n abc | sha256sum",
    "md5sum bin.dat",
    "sha256sum nope; echo $?",
    "sha256sum a.txt > sums; sha256sum -c sums",
    "md5sum 'my file.txt'",
    "md5sum a.txt > m; echo x >> a.txt; md5sum -c m; echo $?",
    "sha256sum empty.txt",
    "md5sum -b a.txt",
    "sha256sum -b -t a.txt",
])

_group("xxd", "text", [
    "xxd bin.dat",
    "head -c 8 a.txt | xxd",
    "xxd -p a.txt",
    "echo 616263 | xxd -r -p; echo",
    "xxd -l 4 a.txt",
    "xxd nope; echo $?",
    "xxd -s 2 -l 3 a.txt",
    "xxd -s -3 a.txt",
    "xxd -p -l 0x3 a.txt",
])

_group("jq", "text", [
    "jq . data.json",
    "jq .name data.json",
    "jq -r .name data.json",
    "jq '.tags[]' data.json",
    "jq '.nested.k | length' data.json",
    "jq -c .nested data.json",
    "echo '{\"a\":1}' | jq '.a + 1'",
    "jq -c keys data.json",
    "echo '[3,1,2]' | jq -c sort",
    "echo 'not json' | jq .; echo $?",
    "jq -c '.tags | map(ascii_upcase)' data.json",
    "jq -n '1+1'",
    "echo '{\"a\":[1,2]}' | jq '.a | add'",
    "jq .missing data.json",
    "jq -r '.tags | join(\",\")' data.json",
    "echo '{\"a\":1} x' | jq -c .a; echo $?",
    "echo '[1,]' | jq .; echo $?",
    "printf '{\"a\":\\n tru}' | jq .; echo $?",
])

_group("misc", "text", [
    "yes | head -2",
    "yes hi there | head -n 2",
    "date -u -d @0",
    "date -u -d @1700000000 +%Y-%m-%dT%H:%M:%S",
    "date -u -d '2024-02-29 12:00:00' +%j",
    "date -u -d @86400 '+%a %b %e %Y'",
    "date -d 'bad date'; echo $?",
    "date -u -r a.txt",
    "date -u -r a.txt +%s",
    "sleep 0.1; echo done",
    "sleep x; echo $?",
    "sleep",
    "basename /a/b/c.txt",
    "basename /a/b/c.txt .txt",
    "basename dir/",
    "dirname /a/b/c.txt",
    "dirname c.txt",
    "dirname /",
    "basename -a x/y z/w",
    "dirname a/b/ c",
    "basename",
    "date -u -d '2024-01-01' '+%A %d %B'",
    "date -r nope; echo $?",
    "date -u +%s +%s; echo $?",
    "date -u -d @0 x; echo $?",
])

_group("ls", "files", [
    "ls",
    "ls -a",
    "ls -A",
    "ls dir",
    "ls -1 dir",
    "ls -d dir",
    "ls nope; echo $?",
    "ls a.txt nope dir",
    "ls -R dir",
    "ls -r",
    "ls *.txt",
    "ls dir/sub/",
    "ls -a dir/sub",
    "ls link.txt",
    "ls -l dir/sub",
    "ls -ld dir/sub/deep.txt",
    "ls -x",
    "ls dir src",
    "ls -d */",
    "ls -1 | wc -l",
    "ls -C dir src",
    "ls -x -1 dir",
    "ls -l -x src",
])

_group("mkdir", "files", [
    "mkdir newd && ls -d newd",
    "mkdir -p x/y/z && find x | sort",
    "mkdir dir; echo $?",
    "mkdir a/b/c; echo $?",
    "mkdir -p dir/sub; echo $?",
    "mkdir",
    "mkdir a.txt/x",
    "mkdir n1 n2 && ls -d n*",
])

_group("rmdir", "files", [
    "rmdir dir/empty && ls dir",
    "rmdir dir; echo $?",
    "rmdir nope",
    "rmdir a.txt",
    "rmdir",
    "rmdir -p dir/empty; echo $?; ls dir",
])

_group("touch", "files", [
    "touch new.txt && ls new.txt && wc -c new.txt",
    "touch a.txt && cat a.txt",
    "touch nodir/x; echo $?",
    "touch -d '2020-01-02 03:04:05' a.txt && stat -c %Y a.txt",
    "touch -c nope; ls nope",
    "touch",
    "touch n1 n2; ls n1 n2",
])

_group("rm", "files", [
    "rm a.txt && ls a.txt",
    "rm nope; echo $?",
    "rm -f nope; echo $?",
    "rm dir; echo $?",
    "rm -r dir && ls -d dir",
    "rm -rf dir src; ls",
    "rm link.txt; cat a.txt",
    "rm",
    "rm -r .",
    "rm a.txt b.txt nope v1.txt; echo $?; ls *.txt",
    "rm -r dir/sub dir/empty && ls -a dir",
    "rm dir/empty; echo $?",
])

_group("cp", "files", [
    "cp a.txt c.txt && cat c.txt",
    "cp a.txt dir && ls dir",
    "cp dir x; echo $?",
    "cp -r dir copy && find copy | sort",
    "cp nope x; echo $?",
    "cp a.txt a.txt; echo $?",
    "cp a.txt b.txt nodir; echo $?",
    "cp -r dir dir/sub; echo $?",
    "cp bin.dat b2 && cmp bin.dat b2 && echo same",
    "cp",
    "cp a.txt",
    "cp a.txt b.txt && cat b.txt",
    "cp link.txt l2 && cat l2 && [ -L l2 ]; echo $?",
    "cp -r src dir && find dir | sort",
    "cp -rv dir d2 | sort",
    "cp -v a.txt dir/sub",
    "cp -vt src a.txt b.txt",
    "cp -t dir; echo $?",
])

_group("mv", "files", [
    "mv a.txt z.txt && ls *.txt",
    "mv a.txt dir/ && ls dir",
    "mv nope x; echo $?",
    "mv dir dir/sub; echo $?",
    "mv a.txt b.txt && cat b.txt",
    "mv 'my file.txt' 'your file.txt' && ls *file*",
    "mv dir src && find src | sort",
    "mv",
    "mv a.txt",
    "mv a.txt b.txt nodir; echo $?",
    "mv -t dir a.txt b.txt; ls dir",
    "mv -t a.txt b.txt; echo $?",
])

_group("ln", "files", [
    "ln -s a.txt l && cat l && readlink l",
    "ln -s nowhere dangling && cat dangling; echo $?",
    "ln -s a.txt link.txt; echo $?",
    "ln -sf b.txt link.txt && cat link.txt",
    "ln -s ../a.txt dir/up && cat dir/up",
    "ln -s dir dl && ls dl",
    "ln -s a.txt dir && readlink dir/a.txt",
])

_group("readlink", "files", [
    "readlink link.txt",
    "readlink a.txt; echo $?",
    "readlink -f link.txt",
    "readlink nope; echo $?",
    "readlink -f dir/../a.txt",
    "realpath a.txt",
    "realpath link.txt",
    "realpath dir/../src",
    "realpath nope",
    "realpath nodir/x; echo $?",
    "realpath / dir/sub",
])

_group("stat", "files", [
    "stat -c '%n %s %F' a.txt link.txt empty.txt && stat -c '%n %F' dir",
    "stat -c %a a.txt",
    "stat -c %s bin.dat",
    "stat -c %Y a.txt",
    "stat nope; echo $?",
    "stat -L -c %F link.txt",
    "stat -c %N link.txt",
    "stat -c '%A %n' dir a.txt",
])

_group("chmod", "files", [
    "chmod 755 a.txt && stat -c %a a.txt",
    "chmod +x a.txt && stat -c %A a.txt",
    "chmod u-w,g+w a.txt; stat -c %a a.txt",
    "chmod 644 nope; echo $?",
    "chmod -R 700 dir && stat -c '%a %n' dir dir/sub dir/c.md",
    "chmod x a.txt; echo $?",
    "chmod 600 a.txt b.txt && stat -c '%a %n' a.txt b.txt",
    "chmod +x script.sh && [ -x script.sh ] && echo exec",
])

_group("du", "files", [
    "du -b a.txt",
    "du -b a.txt bin.dat",
    "du nope; echo $?",
])

_group("tree", "files", [
    "tree dir",
    "tree",
    "tree -a dir",
    "tree src",
    "tree nope; echo $?",
    "tree dir/sub src/lib",
])

_group("find", "files", [
    "find dir | sort",
    "find . -name '*.txt' | sort",
    "find . -iname 'A*' | sort",
    "find . -path '*sub*' | sort",
    "find . -type d | sort",
    "find . -type f -name '*.py' | sort",
    "find . -type l",
    "find . -maxdepth 1 -name '*.csv'",
    "find dir -mindepth 2 | sort",
    "find . -type f -size 0 | sort",
    "find . -type f -size +100c | sort",
    "find . -type f -mtime -1 | sort",
    "find . -type f -mtime +30 | sort",
    "touch new.txt; find . -type f -newer a.txt",
    "find dir -name '*.md' -exec cat {} \\;",
    "find . -name '*.py' -exec grep -l print {} \\; | sort",
    "find dir -name c.md -print0 | xargs -0 echo",
    "find nope; echo $?",
    "find . -name",
    "find src ! -name '*.py' | sort",
    "find src -type f -exec wc -l {} + | sort",
    "find . -maxdepth 1 -type d | sort",
    "find dir/sub",
    "find . -name '*.md' -o -name '*.js' | sort",
])

_group("archive", "files", [
    "zip -q out.zip a.txt b.txt && unzip -l out.zip",
    "zip -q -r out.zip dir && rm -r dir && unzip -q out.zip && find dir | sort && cat dir/c.md",
    "zip -q o.zip a.txt && unzip -p o.zip a.txt",
    "zip -q o.zip a.txt && mkdir x && unzip -q o.zip -d x && cat x/a.txt",
    "unzip -q nope.zip; echo $?",
    "tar cf t.tar a.txt b.txt && tar tf t.tar",
    "tar czf t.tgz dir && tar tzf t.tgz | sort",
    "tar cf t.tar dir && rm -r dir && tar xf t.tar && cat dir/sub/deep.txt",
    "tar xf nope.tar; echo $?",
    "tar czf - a.txt | tar tzf -",
    "mkdir out && tar cf t.tar a.txt && tar xf t.tar -C out && ls out",
    "tar -cf t.tar a.txt b.txt && rm a.txt b.txt && tar -xf t.tar && cat a.txt b.txt",
    "zip -q o.zip a.txt && echo x > a.txt && unzip -o -q o.zip && cat a.txt",
    "tar cf t.tar dir && tar tf t.tar dir/sub/ nope; echo $?",
    "tar cf t.tar dir a.txt && mkdir o && tar xf t.tar -C o dir/sub && find o | sort",
])

# Shell scripts as commands: `sh`/`bash` (FILE, -c, standard input), files with a `#!` line,
# a script's own scope ($0, $@, variables, functions, exit), recursion. `#!/bin/sh` is dash
# on the machine that generates: those scripts keep to what dash and bash print alike.
_group("script", "lang", [
    r"printf '#!/bin/sh\necho $0 $#\n' > s.sh && chmod +x s.sh && ./s.sh a b",
    r"""printf '#!/bin/bash\nfor a in "$@"; do echo "[$a]"; done\n' > s.sh"""
    r""" && chmod +x s.sh && ./s.sh 'a b' c ''""",
    r"""printf '#!/usr/bin/env bash\necho "$1-$2"\nexit 3\n' > s.sh && chmod +x s.sh"""
    r""" && ./s.sh x y; echo $?""",
    r"printf '#!/usr/bin/env sh\necho env sh $1\n' > s.sh && chmod +x s.sh && ./s.sh z",
    r"printf 'echo no shebang $0\n' > s.sh && chmod +x s.sh && ./s.sh",
    r"printf '#!/bin/sh\necho hi\n' > s.sh && ./s.sh; echo $?",
    r"printf '#!/usr/bin/nosuch\necho hi\n' > s.sh && chmod +x s.sh && ./s.sh; echo $?",
    r"printf '#!/usr/bin/env nosuchinterp\necho hi\n' > s.sh && chmod +x s.sh && ./s.sh; echo $?",
    r"""printf '#!/usr/bin/env python3\nimport sys\nprint(sys.argv[1:])\n' > p"""
    r""" && chmod +x p && ./p a 'b c'""",
    r"""mkdir -p bin && printf '#!/bin/sh\necho "$0" "$@"\n' > bin/hello"""
    r""" && chmod +x bin/hello && PATH=$PWD/bin:$PATH hello w""",
    r"printf 'X=inner; f() { echo f; }; exit 2\n' > s.sh && X=outer && sh s.sh; echo $? $X; f",
    r"""printf 'echo "[$X][$Y]"\n' > s.sh && X=1 && export Y=2 && bash s.sh""",
    r"""printf 'echo "[$Z]"\n' > s.sh && Z=tmp bash s.sh; echo "[$Z]" """,
    r"printf 'cd dir; pwd\n' > s.sh && bash s.sh && pwd",
    r"""printf 'echo $#; shift; echo "$@"\n' > s.sh && bash s.sh 1 2 3""",
    "sh -c 'echo $0 $1 $2' name a b",
    "bash -c 'echo $0; echo $#'",
    "sh -c 'exit 5'; echo $?",
    "echo 'echo piped $#' | sh",
    r"printf 'echo from file\nexit 4\n' > s.sh && sh < s.sh; echo $?",
    """echo 'echo "$0 $1"' | bash -s x""",
    """bash -c 'echo "$@"' zero 'a b' c""",
    "bash nosuch.sh; echo $?",
    "bash dir; echo $?",
    r"printf 'echo a\nreturn 3\necho b\n' > s.sh && bash s.sh 2>/dev/null; echo $?",
    r"printf 'n=$1; echo $n; [ $n -lt 3 ] && ./s.sh $((n+1)); exit 0\n' > s.sh"
    r" && chmod +x s.sh && ./s.sh 1",
    r"printf 'exit 3\n' > s.sh && sh s.sh && echo yes || echo no $?",
    r"printf 'echo in script\n' > s.sh && chmod +x s.sh && ./s.sh | tr a-z A-Z",
    r"printf 'read x; echo got $x\n' > s.sh && echo hello | bash s.sh",
    r"printf '#!/bin/sh\ncat\n' > s.sh && chmod +x s.sh && printf 'a\nb\n' | ./s.sh | wc -l",
    r"printf 'f() { return 4; }\nf\necho $?\n' > s.sh && bash s.sh",
    r"""x=$(printf 'echo sub\n' > s.sh; bash s.sh); echo "[$x]" """,
    r"""printf 'echo "$0"\n' > s.sh && bash ./s.sh && sh s.sh""",
    r"printf 'exit\n' > s.sh && false; bash s.sh; echo $?",
    "bash -c 'exit 300'; echo $?",
    r"printf '\000\001bin\n' > b.bin && chmod +x b.bin && ./b.bin; echo $?",
    r"printf '\000\001bin\n' > b.bin && bash b.bin; echo $?",
    "chmod +x script.sh && ./script.sh; echo $?; greet x; . ./script.sh && greet you",
    r"printf '#!/bin/bash -e\nfalse\necho no\n' > s.sh && chmod +x s.sh && ./s.sh; echo $?",
    "bash -c 'echo $(( $# + 1 ))' a b c",
    "bash -c 'echo $0 $1' -- a",
    "bash -c; echo $?",
    r"printf 'echo $1\n' > s.sh && chmod +x s.sh && ./s.sh one && sh ./s.sh two"
    r" && bash -c './s.sh three'",
    "sh -c 'echo a; exit 2; echo b'; echo $?",
    "bash -c 'cd dir && echo $PWD'; echo $PWD",
    r"mkdir -p bin && printf 'echo found $0\n' > bin/tool && PATH=$PWD/bin:$PATH bash tool",
])

# set -e, -u, -x and -o pipefail in a new shell: where errexit applies, as bash has it.
_group("errexit", "lang", [
    "bash -c 'set -e; false; echo no'; echo $?",
    "bash -e -c 'false || echo handled; echo after'",
    "bash -ec 'if false; then echo t; else echo f; fi; echo after'",
    "bash -ec '! true; echo after-negate'",
    "bash -ec 'false && echo no; echo after-and'",
    "bash -ec 'true && false; echo no'; echo $?",
    "bash -ec 'f() { false; echo in-f; }; f; echo after'; echo $?",
    "bash -ec 'f() { false; echo in-f; }; f || echo caller; echo after'",
    "bash -ec '(false; echo in-sub); echo after'; echo $?",
    "bash -ec 'x=$(false); echo no'; echo $?",
    "bash -ec 'echo $(false; echo sub-runs); echo after'",
    "bash -ec 'while false; do :; done; echo loop-ok'",
    "bash -ec 'false | true; echo pipe-ok'",
    "bash -e -o pipefail -c 'false | true; echo no'; echo $?",
    "bash -c 'set -o pipefail; false | true; echo $?; true | false | true; echo $?'",
    "bash -c 'set -e; set +e; false; echo off'",
    r"printf 'set -e\necho a\nfalse\necho b\n' > s.sh && bash s.sh; echo $?",
    "bash -ec 'for i in 1 2; do echo $i; false; done'; echo $?",
    "bash -uc 'echo $nope; echo no'; echo $?",
    "bash -xc 'echo hi'",
    "bash -ec 'case x in y) false;; esac; echo case-ok'",
    "bash -ec '{ false; echo no; }; echo no2'; echo $?",
    "bash -ec 'until true; do :; done; false; echo no'; echo $?",
    "set -e; bash -c 'exit 3' || echo caught $?",
])

# trap: EXIT at a shell's end (script, -c, subshell), ERR after a failure, listing.
_group("trap", "lang", [
    "bash -c 'trap \"echo bye\" EXIT; echo hi'",
    "bash -c 'trap \"echo bye \\$?\" EXIT; exit 3'; echo $?",
    "bash -c 'trap \"echo cleanup\" EXIT; set -e; false; echo no'; echo $?",
    "bash -c 'trap \"exit 7\" EXIT; true'; echo $?",
    "bash -c 'trap \"echo err \\$?\" ERR; false; echo next'",
    "bash -c 'trap \"echo err\" ERR; false || true; if false; then :; fi; ! false; echo quiet'",
    "bash -c 'trap \"echo sub-exit\" EXIT; (trap \"echo inner\" EXIT; echo in-sub); echo after'",
    "bash -c 'trap \"echo x\" EXIT; trap - EXIT; echo reset'",
    "bash -c 'trap \"echo a\" EXIT INT; trap'",
    r"""printf '%s\n' "trap \"echo \\\"it's\\\"\" EXIT" 'trap -p' > s.sh && bash s.sh""",
    r"printf 'trap \"echo script-exit\" EXIT\necho body\n' > s.sh && bash s.sh; echo after",
    "bash -c 'trap \"\" EXIT; echo empty'",
    "bash -c 'f() { trap \"echo fexit\" EXIT; }; f; echo after-f'",
    "bash -c 'trap \"echo err\" ERR; f() { false; echo in-f; }; f; echo done'",
    "bash -c 'trap \"echo e\" ERR; set -e; false; echo no'; echo $?",
    "bash -c 'trap \"echo \\$(echo sub)\" EXIT'",
    "bash -c 'trap x NOSUCH' 2>/dev/null; echo $?",
    "bash -c 'echo $(trap \"echo t\" EXIT; echo a)'",
    "bash -c 'trap \"echo e\" ERR; (false); x=$(false); echo after'",
    "(trap 'echo sub-trap' EXIT; echo body); echo line-goes-on",
    "bash -c 'trap \"echo 0-trap\" 0; trap -p EXIT'",
])

# time (bash's keyword; the numbers vary, so they are replaced) and coreutils' timeout.
_group("timing", "lang", [
    "{ time echo hi; } 2>&1 | sed 's/[0-9]/N/g'",
    "{ time -p true; } 2>&1 | sed 's/[0-9]/N/g'",
    "{ time false; } 2>/dev/null; echo $?",
    "{ time ! false; } 2>/dev/null; echo $?",
    "{ time echo a | tr a b; } 2>/dev/null",
    "TIMEFORMAT='took %1R'; { time true; } 2>&1 | sed 's/[0-9]/N/g'",
    "TIMEFORMAT=; { time true; } 2>&1; echo end",
    "type time",
    "timeout 5 echo fast; echo $?",
    "timeout 0.1 sleep 3; echo $?",
    "timeout 0.01m sleep 3; echo $?",
    "timeout 0.1s sh -c 'while :; do :; done'; echo $?",
    "timeout 5 sh -c 'exit 3'; echo $?",
    "timeout --preserve-status 0.1 sleep 3; echo $?",
    "timeout x true; echo $?",
    "timeout; echo $?",
    "timeout 1 nosuchcmd; echo $?",
    "timeout -k 1 0.1 sleep 3; echo $?",
    "timeout 0 echo zero; echo $?",
    "timeout -v 0.1 sleep 2; echo $?",
    "echo abc | timeout 5 tr a-c A-C",
    "timeout -s FOO 1 true; echo $?",
    "{ time bash -c 'echo out; exit 2'; } 2>/dev/null; echo $?",
])

_group("lookup", "lang", [
    "command -v cd echo; echo $?",
    "command -v nosuch; echo $?",
    "command -v cd nosuch; echo $?",
    "command -V cd",
    "command -V nosuch; echo $?",
    "f() { :; }; command -v f; command -V if",
    "command -v if while; echo $?",
    "command echo hi",
    "f() { echo fn; }; command f; echo $?",
    "command; echo $?",
    "command -x; echo $?",
    "type -a cd",
    "type -t if cd nosuch; echo $?",
    "type -p cd; echo $?",
    "type -P cd; echo $?",
    "type -f cd",
    "type -x; echo $?",
    "type -- cd",
    "mkdir b && printf 'print(1)\\n' > b/t.py && chmod +x b/t.py && PATH=$PWD/b:$PATH"
    " && command -v t.py && type t.py && type -t t.py && which t.py",
    "mkdir b && printf 'print(1)\\n' > b/t.py && chmod +x b/t.py && PATH=$PWD/b:$PATH"
    " && type -P t.py && type -p t.py && command -V t.py",
    "mkdir b && printf 'print(1)\\n' > b/cat && chmod +x b/cat && PATH=$PWD/b:$PATH"
    " && type -P cat",
    "cd dir && command -v ../b.txt nope; echo $?",
])

# awk: run by GNU awk (gawk, plain) on the generating side (generate.py puts it first as `awk`).
_group("awk-basic", "text", [
    "awk '{ print }' a.txt",
    "awk '{ print NR, $0 }' b.txt",
    "awk 'END { print NR }' lines.txt",
    "awk -F, '{ print $2 }' fruits.csv",
    "awk -F, 'NR > 1 { s += $3 } END { print s }' fruits.csv",
    "awk '/two/' b.txt",
    "awk '!/two/' b.txt",
    "awk 'NR == 3, NR == 5' lines.txt",
    "awk '/line 4/,/line 6/ { print NR \": \" $2 }' lines.txt",
    "awk 'BEGIN { print \"hello\", \"world\" }'",
    "printf 'a b c\\nd e\\n' | awk '{ print NF, $NF, $(NF-1) }'",
    "echo '  lead  trail  ' | awk '{ print \"[\" $1 \"][\" $2 \"]\", NF }'",
    "awk 'NR % 5 == 0' lines.txt",
    "awk 'length($0) > 4' words.txt",
    "awk -v n=3 'NR <= n' words.txt",
    "awk 'FNR == 1 { print FILENAME }' a.txt b.txt",
    "awk '{ print FNR, NR }' a.txt b.txt",
    "awk -f empty.txt a.txt; echo $?",
    "printf 'BEGIN { x = 2 }\\n{ print x * NR }\\n' > p.awk; awk -f p.awk a.txt",
    "awk '{ print x, $0 }' x=1 a.txt x=2 b.txt",
])

_group("awk-fields", "text", [
    "echo 'a:b:c' | awk -F: '{ $2 = \"X\"; print; print NF }'",
    "echo 'a b c' | awk '{ $5 = \"e\"; print; print NF }'",
    "echo 'a b c d' | awk '{ NF = 2; print }'",
    "echo 'a b c' | awk 'BEGIN { OFS = \"-\" } { $1 = $1; print }'",
    "echo 'a b c' | awk 'BEGIN { OFS = \"-\" } { print $1, $2 }'",
    "echo 'a,b;c' | awk -F '[,;]' '{ print $3, $1 }'",
    "printf 'a\\tb c\\td\\n' | awk -F '\\t' '{ print $2 }'",
    "echo 'x  y' | awk -F ' ' '{ print $2 }'",
    "echo 'aXXbXc' | awk -F 'X+' '{ print $2, NF }'",
    "echo 'abc' | awk 'BEGIN { FS = \"\" } { print $2, NF }'",
    "printf 'a b\\nc d\\n\\ne f\\ng\\n' | awk 'BEGIN { RS = \"\" } { print NR \": \" $1 "
    "\"|\" $NF }'",
    "printf 'a b\\nc d\\n\\n\\ne f\\n' | awk 'BEGIN { RS = \"\"; FS = \"\\n\" } { print NF, $1 }'",
    "printf 'a;b;c' | awk 'BEGIN { RS = \";\" } { print NR, $0 }'",
    "echo 'one two' | awk '{ $0 = \"x y z\"; print NF, $2 }'",
    "awk 'BEGIN { ORS = \"|\" } { print }' a.txt; echo",
    "echo '1 2' | awk '{ $3 = $1 + $2 } 1'",
])

_group("awk-values", "text", [
    "echo '10 9' | awk '{ print ($1 > $2) }'",
    "echo '10 abc' | awk '{ print ($1 > $2) }'",
    "awk 'BEGIN { print (\"10\" > \"9\"), (10 > 9) }'",
    "echo '0x1A 1e3 .5' | awk '{ print $1 + 0, $2 + 0, $3 + 0 }'",
    "awk 'BEGIN { print 1/3, 100000000, 1e20, 0.1 + 0.2, -0 }'",
    "awk 'BEGIN { OFMT = \"%.2f\"; x = 3.14159; print x; print x \"\" }'",
    "awk 'BEGIN { CONVFMT = \"%.2f\"; x = 3.14159; y = x \"\"; print y }'",
    "awk 'BEGIN { x; print (x == 0), (x == \"\"), length(x) }'",
    "awk 'BEGIN { print 7 % 3, -7 % 3, 2 ^ 10, 2 ** 3, 2 ^ 3 ^ 2 }'",
    "awk 'BEGIN { x = 5; x += 2; x -= 1; x *= 3; x /= 2; x %= 5; x ^= 2; print x }'",
    "awk 'BEGIN { i = 5; print i++, i, ++i, i--, --i }'",
    "awk 'BEGIN { print \"a\" \"b\" 1 + 2 }'",
    "awk 'BEGIN { print 1 \" \" -1 }'",
    "awk 'BEGIN { print !0, !1, !\"\", !\"a\", - -3 }'",
    "awk 'BEGIN { print (1 < 2) ? \"yes\" : \"no\" }'",
    "echo ' 12 ' | awk '{ print ($0 == 12), ($1 == \"12\") }'",
    "awk 'BEGIN { print int(3.9), int(-3.9), int(\"42abc\") }'",
    "awk 'BEGIN { print 1e300 * 1e300, -1e300 * 1e300, log(0) }'",
    "awk 'BEGIN { print length(12345), length(1/4) }'",
    "awk 'BEGIN { x = \"3x\"; print x + 1, x * 2 }'",
])

_group("awk-arrays", "text", [
    "awk '{ c[$0]++ } END { for (w in c) print w, c[w] }' words.txt | sort",
    "awk 'BEGIN { a[1]; a[2]; delete a[1]; print (1 in a), (2 in a), length(a) }'",
    "awk 'BEGIN { a[1,2] = 3; for (k in a) { split(k, p, SUBSEP); print p[1], p[2] }; print "
    "((1,2) in a) }'",
    "awk 'BEGIN { n = split(\"a b c\", x); delete x; print n, length(x) }'",
    "awk 'BEGIN { if (\"k\" in a) print \"yes\"; else print \"no\"; print length(a) }'",
    "awk 'BEGIN { a[\"x\"]; if (a[\"y\"] == \"\") print length(a) }'",
    "awk -F, 'NR > 1 { sum[$2] += $3 } END { for (c in sum) print c, sum[c] }' fruits.csv | sort",
    "awk '{ line[NR] = $0 } END { for (i = NR; i > 0; i--) print line[i] }' a.txt",
    "awk 'BEGIN { a[01] = \"x\"; print a[1], a[\"01\"] \"|\" }'",
    "awk 'BEGIN { a[0.1 + 0.2] = 1; for (k in a) print k }'",
])

_group("awk-control", "text", [
    "awk 'BEGIN { for (i = 1; i <= 5; i++) { if (i == 2) continue; if (i == 4) break; print i } }'",
    "awk 'BEGIN { i = 0; while (i < 3) print i++ }'",
    "awk 'BEGIN { i = 5; do { print i } while (i++ < 3) }'",
    "awk 'NR == 2 { next } { print }' a.txt",
    "awk '{ print FILENAME; nextfile }' a.txt b.txt",
    "awk 'NR == 3 { exit } { print }' lines.txt",
    "awk 'BEGIN { exit 3 } END { print \"end runs\" }'; echo $?",
    "awk '{ exit 4 } END { print \"end\"; exit }' a.txt; echo $?",
    "awk 'BEGIN { if (1) if (0) print \"a\"; else print \"b\" }'",
    "awk 'BEGIN { for (;;) { n++; if (n > 3) break }; print n }'",
    "awk 'BEGIN { while (1) { if (++k >= 1000) break } ; print k }'",
    "awk 'BEGIN {\n  x = 1\n  if (x)\n    print \"multi\"\n  else\n    print \"line\"\n}'",
])

_group("awk-functions", "text", [
    "awk 'function fact(n) { return n <= 1 ? 1 : n * fact(n - 1) } BEGIN { print fact(10) }'",
    "awk 'function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) } BEGIN { print fib(15) }'",
    "awk 'function f(a, b) { b = a * 2; return b } BEGIN { b = 1; print f(3), b }'",
    "awk 'function fill(arr, n,  i) { for (i = 1; i <= n; i++) arr[i] = i * i } BEGIN { "
    "fill(sq, 4); print sq[3], length(sq) }'",
    "awk 'function g(x) { x[1] = \"set\" } BEGIN { g(a); print a[1] }'",
    "awk 'function noret() { } BEGIN { x = noret(); print \"[\" x \"]\" }'",
    "awk 'function max(a, b) { return a > b ? a : b } { m = max(m, length($0)) } END { print "
    "m }' words.txt",
    "awk 'function loc(  t) { t[1] = 1; return length(t) } BEGIN { print loc(), loc() }'",
])

_group("awk-builtins", "text", [
    "awk 'BEGIN { print substr(\"hello\", 2), substr(\"hello\", 2, 3), substr(\"hello\", 0, "
    "2), substr(\"hello\", -1), \"[\" substr(\"hello\", 9) \"]\" }'",
    "awk 'BEGIN { print index(\"abcabc\", \"ca\"), index(\"abc\", \"z\") }'",
    "awk 'BEGIN { s = \"aaa\"; n = gsub(/a/, \"b\", s); print n, s }'",
    "awk 'BEGIN { s = \"hello\"; sub(/l+/, \"[&]\", s); print s }'",
    "awk 'BEGIN { s = \"a.b.c\"; gsub(/\\./, \"\\\\&\", s); print s }'",
    "awk 'BEGIN { s = \"abc\"; gsub(/x*/, \"-\", s); print s }'",
    "awk 'BEGIN { s = \"abc\"; gsub(/b*/, \"-\", s); print s }'",
    "awk '{ gsub(/a/, \"A\") } 1' a.txt",
    "awk 'BEGIN { print match(\"foobar\", /o+b/), RSTART, RLENGTH; print match(\"x\", /y/), "
    "RSTART, RLENGTH }'",
    "awk 'BEGIN { n = split(\"2024-01-15\", d, \"-\"); print n, d[1], d[3] + 0 }'",
    "awk 'BEGIN { n = split(\"a1b22c\", p, /[0-9]+/); print n, p[1], p[2], p[3] }'",
    "awk 'BEGIN { print toupper(\"MiXed 1\"), tolower(\"MiXed 1\") }'",
    "awk 'BEGIN { printf \"%.3f %.3f %.3f %.3f\\n\", sqrt(2), exp(1), log(10), atan2(1, 1) * 4 }'",
    "awk 'BEGIN { printf \"%.4f %.4f\\n\", sin(1), cos(1) }'",
    "awk 'BEGIN { srand(1); x = rand(); print (x >= 0 && x < 1), srand(2) }'",
    "awk 'BEGIN { print length(), length(\"\") } END { print length }' a.txt",
    "awk 'BEGIN { print gensub(/([a-z]+)-([0-9]+)/, \"\\\\2:\\\\1\", \"g\", \"ab-12 cd-34\") }'",
    "awk 'BEGIN { print gensub(/o/, \"0\", 2, \"foo boo\") }'",
    "awk 'BEGIN { s = sprintf(\"%s=%d\", \"x\", 42); print s, length(s) }'",
    "echo 'a b c' | awk '{ sub(/b/, \"B\"); print; print $2 }'",
])

_group("awk-printf", "text", [
    "awk 'BEGIN { printf \"%d|%5d|%-5d|%05d|%+d\\n\", 42, 42, 42, 42, 42 }'",
    "awk 'BEGIN { printf \"%s|%10s|%-10s|%.2s\\n\", \"abc\", \"abc\", \"abc\", \"abc\" }'",
    "awk 'BEGIN { printf \"%f %e %g %G\\n\", 3.14159, 31415.9, 0.0001234, 1e-10 }'",
    "awk 'BEGIN { printf \"%x %X %o %c %c\\n\", 255, 255, 8, 65, \"hello\" }'",
    "awk 'BEGIN { printf \"%*d|%-*d|%.*f\\n\", 5, 1, 4, 2, 2, 3.14159 }'",
    "awk 'BEGIN { printf \"100%%\\n\" }'",
    "awk 'BEGIN { printf \"%d %d\\n\", \"12abc\", -3.9 }'",
    "awk 'BEGIN { printf(\"%s-%s\\n\", \"a\", \"b\") }'",
    "awk 'BEGIN { printf \"%5.1f%%\\n\", 45.678 }'",
    "awk '{ printf \"%-6s|\", $0 } END { printf \"\\n\" }' a.txt",
])

_group("awk-io", "text", [
    "awk '{ print > \"out.txt\" }' a.txt; cat out.txt",
    "awk '{ print > \"o2.txt\" } END { close(\"o2.txt\"); while ((getline l < \"o2.txt\") > "
    "0) n++; print n }' b.txt",
    "echo x > app.txt; awk 'BEGIN { print \"y\" >> \"app.txt\" }'; cat app.txt",
    "awk '{ print | \"sort\" }' words.txt",
    "awk '{ print | \"sort -r\" } END { close(\"sort -r\"); print \"done\" }' b.txt",
    "awk 'BEGIN { while ((\"cat a.txt\" | getline line) > 0) print \"got\", line }'",
    "awk 'BEGIN { \"echo one two\" | getline; print $2, NF }'",
    "awk 'BEGIN { while ((getline line < \"b.txt\") > 0) n++; print n; print (getline x < "
    "\"nope.txt\") }'",
    "awk 'NR == 1 { getline; print \"after getline:\", $0, NR }' a.txt",
    "awk 'NR == 1 { getline v; print \"v=\" v, \"$0=\" $0, NR }' a.txt",
    "awk 'BEGIN { r = system(\"echo from system; exit 3\"); print \"status\", r }'",
    "awk 'BEGIN { print \"to err\" > \"/dev/stderr\"; print \"to out\" }'",
    "awk '{ print $1 > ($1 \".out\") } END { close(\"alpha.out\"); getline x < "
    "\"alpha.out\"; print x }' a.txt",
    "echo 'in' | awk 'BEGIN { getline; print \"begin saw\", $0 }'",
    "awk 'BEGIN { printf \"%s\\n\", \"p\" | \"cat\"; close(\"cat\"); print \"q\" }'",
    "awk 'END { print $0, NF }' a.txt",
])

_group("awk-regex", "text", [
    "awk '/^[a-c]/' words.txt",
    "awk '$0 ~ /an+a/' words.txt",
    "awk '$1 !~ /e/' words.txt",
    "awk '/(ap|ch)/' words.txt",
    "awk '/[[:upper:]]/' words.txt",
    "awk '/^.{5}$/' words.txt",
    "awk 'BEGIN { re = \"^b\" } $0 ~ re' words.txt",
    "awk 'BEGIN { print (\"a.c\" ~ /a\\.c/), (\"abc\" ~ /a\\.c/), (\"a/b\" ~ /a\\/b/), "
    "(\"a+b\" ~ \"a\\\\+b\") }'",
    "awk 'BEGIN { print (\"ab\" ~ /a|x/), (\"\" ~ /^$/), (\"x\\ny\" ~ /x.y/) }'",
    "awk '/a/ && /n/ { print \"both:\", $0 } /^d/ || /^C/ { print \"either:\", $0 }' words.txt",
    "printf 'aXbXXc' | awk 'BEGIN { RS = \"X+\" } { print NR, $0 }'",
    "awk 'BEGIN { s = \"foo.bar\"; n = split(s, p, \".\"); print n, p[2] }'",
])

_group("awk-more", "text", [
    "awk '{ $(NF+2) = \"x\"; print; print NF }' a.txt",
    "awk 'BEGIN { ARGV[1] = \"b.txt\"; ARGC = 2 } { n++ } END { print n }' a.txt",
    "awk 'BEGIN { while ((\"echo a; echo b\" | getline x) > 0) print x; print NR }'",
    "awk '{ getline x < \"b.txt\"; print $0, x }' a.txt",
    "awk 'NR == 1 { while ((getline line) > 0) last = line } END { print last, NR }' a.txt",
    "awk 'BEGIN { $0 = \"a b c\"; print NF; $2 = \"\"; print; print NF }'",
    "awk 'BEGIN { s = \"aaa\"; print gsub(\"a\", \"\\\\\\\\&\", s), s }'",
    "awk 'BEGIN { print 1e6, 1e16, 123456789012, 0.000001, 100000 * 100000, 2^53 }'",
    "awk 'BEGIN { n = split(\"  a  b  \", a); print n, a[1], a[2] }'",
    "awk -F. '{ print NF }' numbers.txt",
    "awk 'BEGIN { printf \"%#o %#x %+.3d % d\\n\", 8, 255, 7, 5 }'",
    "awk 'BEGIN { print -3 % 2, 3 % -2, 5.5 % 2, 1 - - 1, 2 - -2 }'",
    "awk 'NR == 1, NR == 2 { print \"r1\", $1 } NR == 2, /never/ { print \"r2\", $1 }' b.txt",
    "awk '/one/, /one/ { print \"same\", NR }' b.txt",
    "awk 'BEGIN { CONVFMT = \"%d\"; a[1.5] = 1; for (k in a) print k }'",
    "awk 'BEGIN { print 1 > 2 ? \"y\" : \"n\" }' 2>/dev/null; echo $?; cat 2 2>/dev/null",
    "awk 'BEGIN { print 010 + 0, \"010\" + 0, 0x10 }'",
    "awk 'BEGIN { print \"z\\ny\\nx\" | \"sort\"; print \"after\" }'",
    "awk 'BEGIN { system(\"\"); print \"x\"; system(\"echo y\"); print \"z\" }'",
    "awk 'BEGIN { print \"a\" > \"f1\"; print \"b\" > \"f1\"; close(\"f1\"); print \"c\" >> \"f1\";"
    " close(\"f1\"); while ((getline l < \"f1\") > 0) print \"f1:\", l }'",
    "awk 'BEGIN { a[1] = \"b\"; a[2] = 10; a[3] = \"a\"; a[4] = 2; n = asort(a);"
    " for (i = 1; i <= n; i++) printf \"%s \", a[i]; n = asorti(a, d); print n, d[1] }'",
    "awk '!seen[$0]++' b.txt",
    "awk 'NR == FNR { a[$1]; next } $1 in a' a.txt words.txt",
    "awk '{ sub(/^/, \">\"); gsub(/$/, \"<\"); print }' a.txt",
    "awk '{ gsub(/^a|a$/, \"_\"); print }' a.txt",
    "echo '3.0 3 1e2 100 +5 5' | awk '{ print ($1 == $2), ($3 == $4), ($5 == $6), ($1 == \"3\") }'",
    "echo ' ' | awk '{ print ($0 == 0), ($0 == \"\"), NF }'",
    "awk -v a=10 -v b=9 'BEGIN { print (a < b); x = \"10\"; y = \"9\"; print (x < y) }'",
    "awk 'function r(n) { if (n <= 0) return \"\"; return n \" \" r(n - 1) } BEGIN { print r(5) }'",
    "awk 'BEGIN { printf \"%.0f %.0f %.0f %d\\n\", 0.5, 1.5, 2.5, 2147483648 * 4 }'",
    "awk 'BEGIN { OFMT = \"%.2g\"; print 3.14159, 3.14159 \"\" }'",
    "awk 'BEGIN { \"echo hi\" | getline; \"echo hi\" | getline x; print $0, x }'",
    "awk 'BEGIN { cmd = \"echo 1; echo 2\"; cmd | getline a; close(cmd); cmd | getline b;"
    " print a, b }'",
    "awk 'BEGIN { print close(\"nothing\"), system(\"exit 5\") }'",
    "awk 'BEGIN { print 1 > \"\" }' 2>/dev/null; echo $?",
    "awk 'BEGIN { getline < \"a.txt\"; print NF, $1, NR; getline x < \"a.txt\"; print x }'",
    "awk 'BEGIN { RS = \"a\" } END { print NR }' a.txt",
    "awk 'BEGIN { n = split(\"a,b,,c,\", p, \",\"); print n, p[3] \"|\" p[5] \"|\" }'",
    "awk 'BEGIN { print int(-0.5), int(\"-3x\"), int(\"\"), int(\" 4 \"), 12345678901234567890 }'",
    "awk 'BEGIN { CONVFMT = \"%.3g\"; x = 3.14159; a[x] = 1; for (k in a) print k }'",
    "awk 1 dir a.txt 2>/dev/null; echo $?",
    "awk '{ print $1 > \"/dev/null\" } END { print NR }' a.txt",
])

# Random lines from tests/shell/gen_awk_cases.py (seeded): expressions and printf formats.
_group("awk-gen-expr", "text", [
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print (x ? "T" : "F"), ("" - -3), 1 }\' '
    'fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ((index(NF, "1") != u) / (a["k"] '
    '+ 7)), (NF >= ((NF ~ -3) <= index(NR, "1"))), u }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print -3, x, match("10", /[0-9]+/) }\' '
    'words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print split((("10" && a[1]) < -NF), '
    'arr), (("10") - (length(y) ? "T" : "F")), length($2 "") }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print !(substr(1e3, 0, 2) ? "T" : "F"), '
    '(("10" ? "T" : "F") + 0 * -3), (substr(y, 2) >= substr((2.5 ~ u), 2)) }\' '
    'words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ((("9" < a[1]) !~ ($1))), '
    'a["k"], (sprintf("%d|%s|%.2f", "abc", NR, 1e3)   u "") + 0 }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print ("9" "" != 1e3), 1e3, $3 }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ((index(1e3, "1") != a[1]) / '
    '((($3 <= $1) || ("" > x)) + 7)), sprintf("%d|%s|%.2f", (y % ($1 + 0 + 7)), x, '
    '(("" != y) + ("abc" == $2))), (1 ? "T" : "F") }\' fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print "", (((0.1   $3) - a[1]) && (" '
    '12 " && match(" 12 ", /[0-9]+/))), $1 }\' fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print "", -(("10" ^ 2)), 1 }\' '
    'fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print "", ((NF >= "") > '
    'index(int("abc"), "1")), -(a["k"] !~ a["k"]) "" }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print "", length((("9" / (a[1] + 7)) / '
    '(("9" * "abc") + 7))), ((NR - (1 <= 1e3)) * (1e3 && a[1])) }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ((0 / (NR + 7)) == ((NF !~ x) ~ '
    'sprintf("%d|%s|%.2f", "10", $3, $1))), -3, (substr(($1 * 0.1), 0, 2) ^ 2) }\' '
    'fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ((("10" ^ 2) && y) > " 12 "), y, '
    'toupper((a["k"] > 0.1) + 0) }\' fruits.csv',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print (index("9", "1") == '
    'toupper(sprintf("%d|%s|%.2f", 1e3, NR, a[1]))), -(NR ? "T" : "F"), (((u) !~ '
    '("10"   a["k"])) !~ (0.1 !~ 1)) }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print (("" + index($2, "1"))   NR), (($2 < '
    '($1 - a["k"])) >= ((0 ? "T" : "F") <= substr("", 0, 2))), sprintf("%d|%s|%.2f", '
    '$2, (substr(-3, 0, 2) % (("9" ? "T" : "F") + 7)), (" 12 " ~ $2) "") }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print (((NR * y)) != int("")), ((($3) '
    '~ (0 ~ 0)) % ("9" + 7)), x }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print match(-a[1], /[0-9]+/), (a[1] < '
    '(("10" ~ y) - ("abc" ? "T" : "F"))), ((a["k"] * NR) + (y / (1e3 + 7))) "" }\' '
    'words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print (split((a["k"]), arr) > !a[1]), '
    '-index((1e3 ? "T" : "F"), "1"), $2 }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print (((0 <= "abc")   split(0.1, arr)) ^ '
    '2), (-y - "10"), (substr(int("10"), 2) < ($1 / ((0   NR) + 7))) }\' words.txt',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print int(NF), (length(" 12 ") ? "T" : '
    '"F"), ((($1 == 1)) ? "T" : "F") }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print (a["k"] || (1e3 == (1 ^ 2))), '
    'index((0 + 0 < (0   2.5)), "1"), (substr(split(1, arr), 0, 2) + -("" ? "T" : '
    '"F")) }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print ((u / ($3 + 7)) == 0), ("" !~ (u <= '
    "(-3 % (1 + 7)))), match(match(match(-3, /[0-9]+/), /[0-9]+/), /[0-9]+/) }' "
    'words.txt',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print $3, ((NR % ((y ^ 2) + 7)) - '
    "-substr($3, 0, 2)), length($2) }' words.txt",
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print split((y   (y && NR)), arr), int((0 '
    '+ 0 ^ 2)), split(index($3, "1"), arr) }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print ("9" != 1), (int(($2 - "9")) % '
    '(((-3 && $2) > NR) + 7)), int(((NR <= "10"))) }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print index(-NR "", "1"), (toupper("10") - '
    '1), index(1e3, "1") }\' words.txt',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print x, ("9" + (-3 / '
    '(sprintf("%d|%s|%.2f", "9", 1e3, a["k"]) + 7))), (length(toupper("")) - (("abc" '
    '!~ $3) || -"")) }\' words.txt',
    'awk -F, \'{ x = "3x"; y = 10; a[1] = "5"; print split((" 12 " > ("abc" < -3)), '
    'arr), (" 12 " !~ ("abc" != 1)), x }\' fruits.csv',
    'awk \'{ x = "3x"; y = 10; a[1] = "5"; print "", index(substr((1 * $2), 0, 2), '
    '"1"), a["k"] "" }\' words.txt',
])

_group("awk-gen-printf", "text", [
    'awk \'BEGIN { printf "%0#1.2x|% #*.2s|% #5.0X|\\n", 254, 8, 65, 1 }\'',
    'awk \'BEGIN { printf "%-0*.2d|% 1.*o|%0#5s|\\n", 2, "12abc", 5, 254, 1 }\'',
    'awk \'BEGIN { printf "%+*.2e|% 0*.2u|%+5.*e|\\n", 1, 254, 1, 1, 0, 1000 }\'',
    'awk \'BEGIN { printf "%1.5E|%1.5o|%12.*s|\\n", 0, -1, 8, 1000 }\'',
    'awk \'BEGIN { printf "%+f|%-12o|% -*.2G|\\n", 254, 254, 1, 0 }\'',
    'awk \'BEGIN { printf "%.5u|%1.*f|% -12.5i|\\n", 254, 4, 123456789, -1 }\'',
    'awk \'BEGIN { printf "%-#5.2s|%-#1.5f|%5.5g|\\n", 1, 1000, 0 }\'',
    'awk \'BEGIN { printf "%#.2e|%1G|%-5.*X|\\n", 1, -1, 5, 123456789 }\'',
    'awk \'BEGIN { printf "%1X|%+#*.2o|% +*.*i|\\n", -1, 3, "12abc", 8, 6, 0 }\'',
    'awk \'BEGIN { printf "%.0x|%#*.2u|% 12.*x|\\n", 1000, 1, 65, 1, "12abc" }\'',
    'awk \'BEGIN { printf "%-1.5u|%*.5G|%5.*u|\\n", 0, 2, 0, 1, 1 }\'',
    'awk \'BEGIN { printf "%05X|%12.5o|%-+*.2i|\\n", 0, 1000, 3, 123456789 }\'',
    'awk \'BEGIN { printf "%#1.5i|%- .5x|%#-.*u|\\n", 254, -77, 2, 65 }\'',
    'awk \'BEGIN { printf "%u|%0-12.2x|%-5.2o|\\n", "42", 1000, "12abc" }\'',
    'awk \'BEGIN { printf "%*s|% 12.0i|%5.5o|\\n", 8, 0, 65, 254 }\'',
    'awk \'BEGIN { printf "% 0.0d|% +*.0e|%+012e|\\n", 1, 8, 123456789, -1 }\'',
    'awk \'BEGIN { printf "%+ 1.5E|% #*g|% *s|\\n", "42", 6, 254, 6, -1 }\'',
    'awk \'BEGIN { printf "% 12.5X|%5.0x|%12.*d|\\n", "42", "12abc", 0, 1 }\'',
    'awk \'BEGIN { printf "% 1.0G|%*.5e|%5.*g|\\n", "42", 0, 123456789, 5, "12abc" }\'',
    'awk \'BEGIN { printf "%0.2e|%#0.2x|%*.5e|\\n", 0, 0, 3, -77 }\'',
    'awk \'BEGIN { printf "%12.2d|%1.0g|% +.*i|\\n", "12abc", 65, 3, 0 }\'',
    'awk \'BEGIN { printf "%+-g|%*.5E|%+#1.*s|\\n", 123456789, 4, 254, 4, -77 }\'',
    'awk \'BEGIN { printf "%.2G|% #*.0X|%*.*E|\\n", 1000, 7, -77, 8, 0, 65 }\'',
    'awk \'BEGIN { printf "%0 X|%0*.5g|%5.5G|\\n", 123456789, 6, 65, "12abc" }\'',
    'awk \'BEGIN { printf "%-.5E|% +12.*E|%-5e|\\n", 0, 7, 65, "42" }\'',
    'awk \'BEGIN { printf "%*.2s|% 12.2X|%1.*d|\\n", 7, "42", -1, 5, -77 }\'',
    'awk \'BEGIN { printf "%1.0u|%-.2G|% 1.5x|\\n", "42", "12abc", -77 }\'',
    'awk \'BEGIN { printf "%.5g|%-1.*o|% #12.*d|\\n", -1, 2, 123456789, 6, 123456789 }\'',
    'awk \'BEGIN { printf "%+01.5u|%- *G|%.0i|\\n", -77, 3, -1, 1000 }\'',
    'awk \'BEGIN { printf "%-1.*s|%g|%12.2E|\\n", 4, 65, "42", 1 }\'',
])

# Coreutils added by the coreutils branch: text reshaping, dumps, expr, checksums, gzip,
# diff -r, split, temporary files and file(1).

_group("rev", "text", [
    "rev a.txt nonl.txt",
    "printf 'abc\\n\\nxy z\\n' | rev",
    "rev nope; echo $?",
])

_group("tac", "text", [
    "tac b.txt",
    "tac nonl.txt a.txt",
    "printf 'a,b,c,' | tac -s ,",
    "printf 'a\\nb' | tac",
])

_group("fold", "text", [
    "fold -w 5 lines.txt | head -4",
    "printf 'the quick brown fox jumps over\\n' | fold -w 10",
    "printf 'the quick brown fox jumps over\\n' | fold -s -w 10",
    "printf 'a\\tb\\tc\\td\\n' | fold -w 10",
    "printf 'a\\tb\\tc\\td\\n' | fold -b -w 5",
    "printf 'abcdefghij' | fold -w 3",
    "fold -w 0 a.txt; echo $?",
    "printf 'hello world\\n' | fold -3",
])

_group("nl", "text", [
    "nl a.txt",
    "printf 'a\\n\\nb\\n' | nl",
    "printf 'a\\n\\nb\\n' | nl -ba",
    "printf 'a\\n\\nb\\n' | nl -ba -nln -w3 -s:",
    "printf 'a\\nb\\n' | nl -nrz -w4",
    "nl -v 10 -i 5 b.txt",
    "nl -bx a.txt; echo $?",
    "nl nonl.txt a.txt",
])

_group("comm", "text", [
    "sort a.txt > s1; sort v2.txt > s2; comm s1 s2",
    "comm v1.txt v2.txt",
    "comm -12 v1.txt v2.txt",
    "comm -3 v1.txt v2.txt",
    "comm -1 -2 -3 v1.txt v2.txt; echo $?",
    "comm b.txt a.txt; echo $?",
    "comm --nocheck-order b.txt a.txt; echo $?",
    "comm --check-order b.txt a.txt; echo $?",
    "comm --total --output-delimiter=: v1.txt v2.txt",
    "comm v1.txt; echo $?",
    "comm nope v1.txt; echo $?",
    "printf 'a\\nb\\n' | comm - v1.txt",
])

_group("paste", "text", [
    "paste v1.txt v2.txt",
    "paste -d, v1.txt a.txt nonl.txt",
    "paste -s v1.txt a.txt",
    "paste -s -d ',;' lines.txt",
    "paste -d '\\n' v1.txt a.txt",
    "printf '1\\n2\\n3\\n4\\n5\\n' | paste - -",
    "paste -s empty.txt | od -c",
    "paste nope; echo $?",
])

_group("join", "text", [
    "printf 'a 1\\nb 2\\nc 3\\n' > f1; printf 'a x\\nc y\\nd z\\n' > f2; join f1 f2",
    "printf 'a 1\\nb 2\\nc 3\\n' > f1; printf 'a x\\nc y\\nd z\\n' > f2; join -a1 f1 f2",
    "printf 'a 1\\nb 2\\nc 3\\n' > f1; printf 'a x\\nc y\\nd z\\n' > f2; join -a1 -a2"
    " -e NA -o 0,1.2,2.2 f1 f2",
    "printf 'a 1\\nb 2\\nc 3\\n' > f1; printf 'a x\\nc y\\nd z\\n' > f2; join -v2 f1 f2",
    "printf 'a 1\\nb 2\\nc 3\\n' > f1; printf 'a x\\nc y\\nd z\\n' > f2; join -v1 f1 f2",
    "printf '1 a\\n2 b\\n' > f1; printf 'a x\\nb y\\n' > f2; join -1 2 -2 1 f1 f2",
    "printf 'k,1,2\\nm,3,4\\n' > f1; printf 'k,x\\nm,y\\n' > f2; join -t, f1 f2",
    "printf 'k,1,2\\nm,3\\n' > f1; printf 'k,x\\nn,y\\n' > f2; join -t, -a1 -a2 -o auto -e - f1 f2",
    "printf 'a 1\\na 2\\n' > f1; printf 'a x\\na y\\n' > f2; join f1 f2",
    "printf 'b 1\\na 2\\n' > f1; printf 'a x\\nc y\\n' > f2; join f1 f2; echo $?",
    "printf 'b 1\\na 2\\n' > f1; printf 'b x\\na y\\n' > f2; join f1 f2; echo $?",
    "printf 'A 1\\nb 2\\n' > f1; printf 'a x\\nB y\\n' > f2; join -i f1 f2",
    "join -o 1.2,2.2 fruits.csv fruits.csv | head -2",
    "join a.txt; echo $?",
    "join nope a.txt; echo $?",
    "join -t, -1 1 -2 1 fruits.csv fruits.csv | head -2",
])

_group("column", "text", [
    "column a.txt",
    "seq 1 30 | column",
    "seq 1 30 | column -x -c 40",
    "seq 1 30 | column -c 20",
    "column -t fruits.csv",
    "column -t -s, fruits.csv",
    "printf 'a,,b\\ncc,d,e\\n' | column -t -s,",
    "printf 'a b c\\ndd e\\n\\nf\\n' | column -t",
    "column -t -s, -o ' | ' fruits.csv",
    "column nope; echo $?",
    "printf 'f\\tg\\nd e\\n lead\\na\\n' | column -t -s' '",
    "printf 'f\\tg\\nd e\\n' | column -c 20",
])

_group("od", "text", [
    "od a.txt",
    "od -c bin.dat",
    "od -An -t x1 bin.dat",
    "od -t x1z -A x a.txt",
    "od -A d -t d1 bin.dat",
    "od -x nonl.txt",
    "od -N 4 -j 2 -c a.txt",
    "od -An -c -w4 a.txt",
    "od -t o1 -t u1 -t c bin.dat",
    "printf '%064d' 0 > z; od -c z",
    "printf '%040d' 0 > z; od -v -An -tx1 -w16 z",
    "od -t a bin.dat",
    "od -t d4 a.txt",
    "od -t x8 lines.txt | head -3",
    "od -A q a.txt; echo $?",
    "od -t y a.txt; echo $?",
    "od -j 100 a.txt; echo $?",
    "od -b empty.txt",
    "od nope; echo $?",
    "printf '\\0\\0\\x80\\x3f\\0\\0\\0\\xc0\\xcd\\xcc\\xcc\\x3d\\0\\0\\0\\0' | od -t f4",
    "printf '\\0\\0\\0\\0\\0\\0\\xf0\\x3f\\x9a\\x99\\x99\\x99\\x99\\x99\\xb9\\x3f'"
    " | od -t f8 -t x1",
    "printf '\\0\\0\\x80\\x7f' | od -tf4 -tf",
    "od -f a.txt",
])

_group("strings", "text", [
    "strings bin.dat",
    "strings -n 3 bin.dat",
    "strings -t x bin.dat",
    "strings -n 2 -t d bin.dat",
    "strings a.txt nonl.txt",
    "printf 'abc\\0defgh\\001ij\\tklmn' | strings",
    "strings -n 0 a.txt; echo $?",
])

_group("expr", "text", [
    "expr 1 + 2",
    "expr 99999999999999999999 + 1",
    "expr 5 / 0; echo $?",
    "expr 1 +; echo $?",
    "expr 1 2; echo $?",
    "expr abc : 'a\\(.\\)'",
    "expr abc : 'a.'; expr abc : 'x'; echo $?",
    "expr a \\< b; expr 10 \\< 9; expr 10 \\< 9a",
    "expr \"\" \\| 0; echo $?",
    "expr; echo $?",
    "expr a + 1; echo $?",
    "expr substr hello 2 3; expr index hello l; expr length hello",
    "expr \\( 1 + 2 \\) \\* 3; expr 7 % -3; expr -7 / 2; expr -7 % 2",
    "expr length; echo $?",
    "expr + length",
    "expr 0 \\& 1 / 0; echo $?",
    "expr 1 \\| 1 / 0; echo $?",
    "expr 3 \\& 4; expr 0 \\| 5; expr a \\| b",
    "expr \\( 1; echo $?",
    "expr \\( 1 2; echo $?",
    "expr 1 \\); echo $?",
    "expr match foobar 'fo*'",
    "expr foobar : '\\(o*\\)'; echo $?",
    "expr hello : '.*l'",
    "expr 'a.b' : 'a\\.b'",
    "expr 12 = 12.0; expr abc = abc; expr 2 != 3",
    "expr 00 ; echo $?",
    "expr -- -5 + 2",
    "expr x : '\\(x\\)\\(y\\)*'",
    "expr abc : '[[:alpha:]]*'",
    "expr aaa : 'a\\{2\\}'",
    "expr substr abc 0 1; echo $?",
    "expr index abc xyz; echo $?",
    "expr 5 \\> 3 \\& 2 \\< 1; echo $?",
    "i=1; while [ $(expr $i \\< 4) = 1 ]; do i=$(expr $i + 1); done; echo $i",
    "expr abc : 'a['; echo $?",
    "expr '(' ; echo $?",
])

_group("seqf", "text", [
    "seq -f '%.2f' 1 3",
    "seq -f 'x%gy' 3",
    "seq -f '%03g' 8 10",
    "seq -f %e 1 2",
    "seq 1 0.5 3",
    "seq 0.1 0.1 0.5",
    "seq 5 -2 0",
    "seq -w -1 1",
    "seq -f %d 1 2; echo $?",
    "seq -f '%g %g' 1; echo $?",
    "seq 1e2 1e2 3e2",
    "seq -s, -w 8 11",
    "seq 3 1; echo $?",
    "seq -f '%%%g' 2",
    "seq 1.5 3",
    "seq -w 0.5 1 3.5",
    "seq -f '%-5g|' 2",
    "seq -f '%+.1e' 1 1",
    "seq -w -f %g 1 2; echo $?",
    "seq 10 -3 1",
    "seq -s ' ' 0.25 0.25 1",
    "seq -f 'n%G' 1000000 1000000",
])

_group("shasum", "text", [
    "sha1sum a.txt b.txt",
    "sha512sum a.txt",
    "sha1sum a.txt > s && sha1sum -c s",
    "sha1sum nope; echo $?",
    "printf 'hi' | sha1sum",
    "sha512sum a.txt > s && echo x > a.txt && sha512sum -c s; echo $?",
])

_group("gzip", "files", [
    "gzip a.txt && ls a.txt* && gzip -l a.txt.gz && gunzip a.txt.gz && cat a.txt",
    "gzip -c a.txt | gunzip",
    "gzip -c a.txt | od -An -tx1 -N 16",
    "gzip -n -c a.txt | od -An -tx1 -N 16",
    "gzip -9 -c a.txt | od -An -tx1 -N 10",
    "gzip -1 -c a.txt | od -An -tx1 -N 10",
    "cat a.txt | gzip | od -An -tx1 -N 10",
    "gzip -k b.txt && ls b.txt* && zcat b.txt.gz",
    "gzip a.txt b.txt && gzip -l a.txt.gz b.txt.gz",
    "gzip a.txt; gzip a.txt.gz; echo $?",
    "gzip nope; echo $?",
    "gzip dir; echo $?",
    "gzip link.txt; echo $?",
    "gzip -c link.txt | zcat",
    "touch a.txt.gz; gzip a.txt; echo $?; ls a.txt*",
    "touch a.txt.gz; gzip -f a.txt; echo $?; zcat a.txt.gz",
    "gunzip a.txt; echo $?",
    "cp a.txt j.gz; gunzip j.gz; echo $?",
    "gzip -t a.txt; echo $?",
    "gzip -c a.txt > a.gz; gzip -t a.gz; echo $?",
    "gzip -c a.txt > x.gz; gzip -c b.txt >> x.gz; zcat x.gz",
    "gzip -c a.txt > x.gz; head -c 20 x.gz > t.gz; zcat t.gz; echo $?",
    "gzip -c a.txt > x.gz; printf junk >> x.gz; zcat x.gz; echo $?",
    "gzip -c a.txt > x.gz; printf '\\0\\0' >> x.gz; zcat x.gz; echo $?",
    "gzip -c a.txt > x.gz; mv x.gz y.gz; gunzip -N y.gz; ls a.txt y* ; echo $?",
    "gzip a.txt; mv a.txt.gz z.gz; gunzip -N z.gz; ls -l a.txt z 2>&1 | cut -c1-10,30-",
    "gzip a.txt; ls -l a.txt.gz | cut -c1-10,30-",
    "chmod 600 a.txt; gzip a.txt; gunzip a.txt.gz; ls -l a.txt | cut -c1-10,30-",
    "gzip -y; echo $?",
    "gzip -dc < /dev/null; echo $?",
    "zcat nope.gz; echo $?",
    "gzip -c empty.txt | gunzip | wc -c",
    "gzip -q a.txt.gz; echo $?",
    "gzip lines.txt && gzip -t lines.txt.gz && gzip -dc lines.txt.gz | tail -2",
    "tar czf t.tgz a.txt && gunzip t.tgz && tar tf t.tar",
    "gzip -c - < a.txt | gzip -d -c -",
    "gzip -cd a.txt 2>&1; echo $?",
    "gzip -v a.txt",
    "gzip -kv a.txt; gzip -dkvf a.txt.gz; gzip -dcv a.txt.gz >/dev/null",
    "gzip -cv a.txt > /dev/null; gzip -k lines.txt; gzip -tv lines.txt.gz",
    "cat a.txt | gzip -v > /dev/null",
    "gzip -v lines.txt; gzip -dv lines.txt.gz",
    "gunzip -y; echo $?",
    "zcat --nope; echo $?",
    "gzip -c a.txt | gzip -l",
    "gzip -k a.txt; gzip -lv a.txt.gz",
    "gzip -n -c a.txt > g.gz; touch -d @1700000000 g.gz; gzip -lv g.gz",
    "gzip -k a.txt b.txt; gzip -lv a.txt.gz b.txt.gz",
    "gzip -t nope; echo $?",
    "gunzip nope; echo $?",
    "gzip -k a.txt; zcat a.txt",
    "gzip -S .x a.txt; ls a.txt*; gzip -S .x a.txt.x; echo $?; gunzip -S .x a.txt.x; cat a.txt",
    "gzip -S '' a.txt; echo $?",
    "gzip --suffix=_y a.txt && ls a.txt* && zcat -S _y a.txt",
])

_group("diffr", "files", [
    "cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new; diff dir d2; echo $?",
    "cp -r dir d2; echo x >> d2/sub/deep.txt; diff dir d2; echo $?",
    "cp -r dir d2; echo x >> d2/sub/deep.txt; diff -r dir d2; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new; diff -r dir d2; echo $?",
    "set -o pipefail; cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new;"
    " diff -ru dir d2 | cut -f1; echo $?",
    "set -o pipefail; cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new;"
    " diff -r -u -N dir d2 | cut -f1; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new; diff -rq dir d2; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new; diff --brief -r -N"
    " dir d2; echo $?",
    "cp -r dir d2; diff -r dir d2; echo $?",
    "cp -r dir d2; diff -rs dir d2 | sort; echo $?",
    "cp -r src s2; rm -r s2/lib; diff -r src s2; echo $?",
    "cp -r src s2; rm -r s2/lib; diff -rN src s2; echo $?",
    "cp -r src s2; rm -r s2/lib; echo x > s2/lib; diff -r src s2; echo $?",
    "mkdir x; cp a.txt x/; echo z >> x/a.txt; diff a.txt x; echo $?",
    "mkdir x; diff a.txt x; echo $?",
    "diff -N a.txt nope; echo $?",
    "diff -r dir nope; echo $?",
    "cp -r dir d2; cp bin.dat dir/; printf 'x\\0' > d2/bin.dat; diff -r dir d2; echo $?",
    "diff bin.dat a.txt; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; diff -r dir/ d2/; echo $?",
    "set -o pipefail; cp -r dir d2; echo x >> d2/c.md; diff -r -U1 dir d2 | cut -f1; echo $?",
    "diff -N nope1 nope2; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; rm d2/d.py; echo n > d2/new; diff -r -x '*.md' dir d2;"
    " echo $?",
    "cp -r dir d2; echo x >> d2/sub/deep.txt; diff -rq --exclude=sub -x new dir d2; echo $?",
    "cp -r dir d2; echo x >> d2/c.md; diff -r -x sub dir d2",
])

_group("split", "files", [
    "split -l 4 lines.txt && ls x* && cat xab",
    "split -l 7 lines.txt p_ && wc -l p_*",
    "split -b 16 a.txt && ls x* && cat xab",
    "split -d -a 3 -l 5 lines.txt q && ls q*",
    "split -l 6 lines.txt --additional-suffix=.txt r && ls r*",
    "split -a 1 -l 1 lines.txt s; echo $?; ls s* | wc -l",
    "split -l 0 lines.txt; echo $?",
    "split -b 2x lines.txt; echo $?",
    "split nope; echo $?",
    "seq 1 700 | split -l 1 - w; ls w* | tail -3",
    "seq 1 110 | split -d -l 1 - v; ls v* | tail -3",
    "cat lines.txt | split -b 1K - big && ls big*",
    "split -4 a.txt && cat xaa",
    "printf 'a\\nb\\nc' | split -l 2 && cat xab",
    "seq 30 | split -a 1 -l 1 - s; echo $?; ls s* | wc -l",
    "seq 1 10 > n; split -n 3 n && od -c xab",
    "seq 1 10 > n; split -n l/3 n && wc -l x*",
    "seq 1 10 | split -n l/3; echo $?",
    "printf ab > t; split -n 4 t; wc -c x*",
    "split -n 0 lines.txt; echo $?",
    "split -n l/4 -d lines.txt p; wc -l p*",
    "split -n 2/3 lines.txt",
    "split -n l/2/3 lines.txt",
    "split -n l/5 a.txt; wc -c x*",
    "split -n 4/3 a.txt; echo $?",
    "split -n 7 lines.txt; wc -c x*",
    "split -n l/7 lines.txt; wc -c x*",
    "split -n l/3 empty.txt; wc -c x*",
])

_group("mktemp", "files", [
    "mktemp fooXX; echo $?",
    "mktemp -d -p . dXXX | wc -c",
    "mktemp -p . fXXXX > n; test -f $(cat n) && echo made",
    "mktemp -p nope; echo $?",
    "mktemp -t a/bXXX; echo $?",
    "mktemp a/bXXX; echo $?",
    "t=$(mktemp -d -p .); test -d $t && echo dir",
    "mktemp -u | grep -c '^/tmp/tmp\\.[A-Za-z0-9]\\{10\\}$'",
    "TMPDIR=$PWD mktemp -t aXXX | grep -c /work/a",
    "mktemp -u -p . | wc -c; ls -A | wc -l",
    "mktemp -p . --suffix=.txt fooXXX | sed 's/foo.../fooN/'",
    "mktemp -p . fooXXX.txt | sed 's/foo.../fooN/'; echo $?",
    "mktemp -p . --suffix=/x fooXXX; echo $?",
    "mktemp -p . --suffix=.x fooXXXy; echo $?",
    "mktemp aXXXbXX; echo $?",
    "mktemp dir/aXXXb | sed 's/a.../aN/'",
])

_group("truncate", "files", [
    "truncate -s 5 t1 && od -c t1",
    "truncate -s 5 t1 && truncate -s +3 t1 && wc -c t1",
    "truncate -s -10 a.txt && wc -c a.txt",
    "truncate -c -s 5 nope2; ls nope2; echo $?",
    "truncate a.txt; echo $?",
    "truncate -s 1K a.txt && wc -c a.txt",
    "truncate -s x a.txt; echo $?",
    "truncate -s '<2' lines.txt && cat lines.txt | od -c",
    "truncate -s '%7' a.txt && wc -c a.txt",
    "truncate -s '/5' a.txt && wc -c a.txt",
    "truncate -s 3 dir; echo $?",
    "truncate -r a.txt b.txt && wc -c b.txt",
    "truncate -r a.txt -s +2 new && wc -c new",
    "truncate -r a.txt -s 2 b.txt; echo $?",
    "truncate -r nope b.txt; echo $?",
])

_group("unlink", "files", [
    "unlink; echo $?",
    "unlink nope; echo $?",
    "unlink dir; echo $?",
    "unlink a b; echo $?",
    "unlink a.txt && ls a.txt; echo $?",
    "unlink link.txt && cat a.txt",
])

_group("filecmd", "files", [
    "file a.txt",
    "file a.txt empty.txt dir link.txt nonl.txt bin.dat",
    "file data.json script.sh",
    "file -b a.txt",
    "file -L link.txt",
    "file nope; echo $?",
    "ln -s nope dl; file dl",
    "gzip -k a.txt && file a.txt.gz",
    "gzip -c -n a.txt > n.gz && file n.gz",
    "gzip -9 -c a.txt > n.gz && file n.gz",
    "printf 'a\\r\\nb\\r\\n' > c; file c",
    "printf 'a\\rb\\r' > c; file c",
    "printf 'a\\x1b[0m\\n' > c; file c",
    "printf 'caf\\xe9\\n' > c; file c",
    "printf '#!/bin/sh\\necho\\n' > s; file s",
    "printf '#!/usr/bin/env python3\\nprint(1)\\n' > s; file s",
    "printf '#!/bin/bash\\necho\\n' > s; file s",
    "printf '%%PDF-1.7\\n%%\\n' > x.pdf; file x.pdf",
    "printf '\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR\\0\\0\\0\\3\\0\\0\\0\\2'"
    "'\\10\\6\\0\\0\\0\\0\\0\\0\\0' > i.png; file i.png",
    "printf '\\xff\\xd8\\xff\\xe0\\0\\20JFIF\\0\\1\\1\\0\\0\\1\\0\\1\\0\\0' > j.jpg;"
    " file -b j.jpg | cut -d, -f1,2",
    "zip -q z.zip lines.txt && file z.zip",
    "tar cf t.tar a.txt && file t.tar",
    "printf 'x%.0s' $(seq 1 400) > long; file long",
    "file src/main.py src",
    "file dir/empty dir/sub/",
    "echo hi | file -",
    "file - < empty.txt",
    "gzip -c -n a.txt | file -",
    "cat bin.dat | file - a.txt",
])

_group("badopts", "text", [
    "comm -Q; echo $?",
    "paste -Q; echo $?",
    "nl -Q; echo $?",
    "fold -Q; echo $?",
    "od -Q; echo $?",
    "join -Q; echo $?",
    "column -Q; echo $?",
    "rev -Q; echo $?",
    "tac -Q; echo $?",
    "split -Q; echo $?",
    "mktemp -Q; echo $?",
    "truncate -Q; echo $?",
    "unlink -Q; echo $?",
    "whoami -Q; echo $?",
    "file -Q; echo $?",
    "sha1sum -Q; echo $?",
    "zcat -Q; echo $?",
    "tac -s '' a.txt; echo $?",
    "nl -b x a.txt; echo $?",
    "paste -d '\\' a.txt; echo $?",
    "join -o 3.1 a.txt b.txt; echo $?",
])

_group("pager", "text", [
    "less a.txt",
    "less a.txt b.txt | wc -l",
    "printf 'x\\ty\\033[1m\\n' | less | od -c",
    "cat a.txt | less - | head -2",
    "more a.txt",
    "more a.txt b.txt",
    "ls | less | wc -l",
    "yes | less | head -3",
])
