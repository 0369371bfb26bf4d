"""The builtins jq 1.6 defines in jq itself (as its builtin.jq does), read once by
``jq_builtins`` into the scope every filter runs in; written here from jq's manual."""

PRELUDE = """
def values: select(. != null); def nulls: select(. == null);
def booleans: select(type == "boolean"); def numbers: select(type == "number");
def strings: select(type == "string"); def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type|. == "array" or . == "object");
def scalars: select(type|. != "array" and . != "object");
def map(f): [.[] | f]; def select(f): if f then . else empty end;
def recurse(f; cond): recurse(f | select(cond)); def recurse_down: recurse;
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: map({(.key // .name): (if has("value") then .value else .v end)})
  | add + {} // {};
def with_entries(f): to_entries | map(f) | from_entries;
def map_values(f): .[] |= f;
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);
def leaf_paths: paths(scalars);
def del(f): delpaths([path(f)]);
def in(xs): . as $x | xs | has($x); def inside(xs): . as $x | xs | contains($x);
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w
  | [$x] + $w end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def walk(f): . as $in | if type == "object" then reduce keys_unsorted[] as $key
  ( {}; . + { ($key): ($in[$key] | walk(f)) } ) | f
  elif type == "array" then map( walk(f) ) | f else f end;
def first: .[0]; def last: .[-1]; def nth($n): .[$n];
def nth($n; f): if $n < 0 then error("Out of bounds negative array index")
  else last(limit($n + 1; f)) end;
def any(f): reduce (.[] | f) as $x (false; . or $x);
def all(f): reduce (.[] | f) as $x (true; . and $x);
def any(g; cond): isempty(first(g | select(cond))) | not;
def all(g; cond): isempty(first(g | select(cond | not)));
def IN(s): any(s == .; .); def IN(src; s): any(src == s; .);
def indices($i): if type == "array" and ($i|type) == "array" then _indices($i)
  elif type == "array" then _indices([$i]) else _indices($i) end;
def index($i): indices($i) | .[0]; def rindex($i): indices($i) | .[-1:][0];
def unique_by(f): [group_by(f)[] | .[0]];
def transpose: if . == [] then [] else . as $in | (map(length) | max) as $max
  | [range(0; $max) as $j | [range(0; $in|length) as $i | $in[$i][$j] ] ] end;
def tostream: path(def r: (.[]?|r), .; r) as $p | getpath($p)
  | reduce path(.[]?) as $q ([$p, .]; [$p+$q]);
def fromstream(f): { x: null, e: false } as $init | foreach f as $i ( $init;
  if .e then $init else . end | if $i | length == 2
  then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
  else setpath(["e"]; $i[0] | length == 1) end; if .e then .x else empty end );
def truncate_stream(stream): . as $n | null | stream | . as $input
  | if (.[0]|length) > $n then setpath([0];.[0][$n:]) else empty end;
def match(re): match(re; null); def test(re): test(re; null);
def capture(re): capture(re; null);
def capture(re; flags): match(re; flags) | _capture_object;
def scan(re): scan(re; null);
def scan(re; flags): match(re; "g" + (flags // ""))
  | if (.captures | length > 0) then [.captures | .[] | .string] else .string end;
def split($re; flags): split2($re; flags);
def splits($re): splits($re; null); def splits($re; flags): split($re; flags) | .[];
def sub(re; str): sub(re; str; ""); def gsub(re; str): sub(re; str; "g");
def gsub(re; str; flags): sub(re; str; flags + "g");
"""
