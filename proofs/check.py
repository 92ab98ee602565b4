"""Independent checker of exactnet certificates (proofs/spec-1.0.md): frame, digests, dispatch, exact helpers."""

import hashlib
import importlib.util
import json
import math
import re
import sys
from collections import namedtuple
from fractions import Fraction
from pathlib import Path

MAJOR, MINOR = 1, 0
MAX_DIGITS = 4000          # per numerator / denominator
MAX_LINE = 1_000_000       # characters per line
MAX_EXHAUSTIVE = 24        # vectors in a flip-set (zero-sum subset) search
KINDS = ("REGIONS", "LOCALLY-IDENTIFIABLE", "HIDDEN-SYMMETRY", "IDENTIFIABLE", "NOT-SHALLOW",
         "EQUIVALENT", "NOT-EQUIVALENT", "NOT-LOCALLY-IDENTIFIABLE")
TWO_NETWORKS = ("EQUIVALENT", "NOT-EQUIVALENT", "HIDDEN-SYMMETRY")
FRAME = ("network", "other", "conclusion", "end", "kind", "exactnet")  # keywords never starting a body line
_RAT = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")
SMALL = re.compile(r"(0|[1-9][0-9]{0,8})\Z")  # a small index: REGIONS bodies, rule lines
Z = Fraction(0)

class CheckError(Exception):
    """A failed check with its reason code and line; the subclass gives the exit code."""
    def __init__(self, code, lineno, msg):
        super().__init__(msg)
        self.code, self.lineno, self.msg = code, lineno, msg

Reject = type("Reject", (CheckError,), {"exit_code": 1})  # well formed, but does not prove its conclusion
Malformed = type("Malformed", (CheckError,), {"exit_code": 2})  # violates the format
UsageError = type("UsageError", (CheckError,), {"exit_code": 3})  # usage or I/O, e.g. a bad --network file

def require(cond, code, lineno, msg, error=Reject):
    if not cond:
        raise error(code, lineno, msg)

def wellformed(cond, code, lineno, msg):
    require(cond, code, lineno, msg, Malformed)

def q(token, lineno=0, limit="E_LIMIT"):
    """Strict canonical rational -> Fraction (reduced, no '/1', no '-0', digit limit: reason code ``limit``)."""
    wellformed(isinstance(token, str) and _RAT.match(token), "E_NUMBER", lineno, f"not canonical: {token!r}")
    wellformed(max(map(len, re.findall(r"\d+", token))) <= MAX_DIGITS, limit, lineno, f"over {MAX_DIGITS} digits")
    v = Fraction(token)
    wellformed(str(v) == token, "E_NUMBER", lineno, f"not a canonical rational: {token!r}")  # reduced, not -0
    return v

def qs(tokens, lineno=0, limit="E_LIMIT"):
    return [q(t, lineno, limit) for t in tokens]

def ints(tokens, lineno=0, small=False):
    """Canonical non-negative integers; small: of at most 9 digits each, else E_SYNTAX (REGIONS bodies)."""
    wellformed(not small or all(map(SMALL.match, tokens)), "E_SYNTAX", lineno, "expected a nonnegative integer")
    for t in tokens:
        wellformed(re.fullmatch("0|[1-9][0-9]*", t), "E_NUMBER", lineno, f"not a canonical integer >= 0: {t!r}")
        wellformed(len(t) <= MAX_DIGITS, "E_LIMIT", lineno, f"integer longer than {MAX_DIGITS} digits")
    return [int(t) for t in tokens]

def dot(a, x):
    return sum((u * v for u, v in zip(a, x)), Z)

def eliminate(M):
    """(rank, determinant if M is square else 0) of a Fraction matrix by integer (Bareiss) elimination."""
    dens = [math.lcm(*(v.denominator for v in r)) for r in M]
    rows, scale = [[int(v * d) for v in r] for r, d in zip(M, dens)], math.prod(dens)
    ncol, r, prev, sign = (len(rows[0]) if rows else 0), 0, 1, 1
    for c in range(ncol):
        piv = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if piv is not None:  # rows from r on are zero left of c: whole rows are updated
            rows[r], rows[piv], sign = rows[piv], rows[r], sign if piv == r else -sign
            p, top = rows[r][c], rows[r]
            rows[r + 1:] = [[(p * v - w[c] * t) // prev for v, t in zip(w, top)] for w in rows[r + 1:]]
            prev, r = p, r + 1
    return r, (Fraction(sign * prev, scale) if len(rows) == ncol == r else Z)

def rank_mod(M, p=(1 << 61) - 1):
    """Rank over GF(p), at most the rank over Q (lemmas/local_identifiability.md); 0 if p divides a denominator."""
    if any(v.denominator % p == 0 for r in M for v in r):
        return 0
    rows, r = [[v.numerator * pow(v.denominator, -1, p) % p for v in row] for row in M], 0
    for c in range(len(rows[0]) if rows else 0):
        piv = next((i for i in range(r, len(rows)) if rows[i][c]), None)
        if piv is not None:  # rows below r are zero left of c
            rows[r], rows[piv] = rows[piv], rows[r]
            top = [v * pow(rows[r][c], -1, p) % p for v in rows[r][c:]]
            rows[r + 1:] = [w[:c] + [(v - w[c] * t) % p for v, t in zip(w[c:], top)] for w in rows[r + 1:]]
            r += 1
    return r

def eye(n):
    return [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]

def rank(M):
    return eliminate(M)[0]

def no_flip_set(vecs, lineno, limit, msg):
    """E_LIMIT over MAX_EXHAUSTIVE vectors; E_FLIP_SET if a nonempty subset sums to 0 (meet in the middle)."""
    require(len(vecs) <= MAX_EXHAUSTIVE, "E_LIMIT", lineno, f"{limit} {MAX_EXHAUSTIVE} neurons")
    def sums(part, sign):  # the sums of the nonempty subsets of part, times sign
        out = set()
        for v in part:
            out |= {tuple(a + sign * c for a, c in zip(s, v)) for s in out} | {tuple(sign * c for c in v)}
        return out
    left, right = sums(vecs[:len(vecs) // 2], 1), sums(vecs[len(vecs) // 2:], -1)
    require(all(map(any, left | right)) and not left & right, "E_FLIP_SET", lineno, msg)

class Net:
    """A network: ``arch`` [n0..nL], ``W[l]`` (n_(l+1) rows of n_l Fractions), ``b[l]``; l from 0."""
    def __init__(self, arch, W, b):
        self.arch, self.W, self.b, self.depth, self.num_hidden = list(arch), W, b, len(W), sum(arch[1:-1])
        self.num_parameters = sum(len(r) for M in W for r in M) + sum(len(v) for v in b)
    @classmethod
    def of(cls, W, b):
        return cls([len(W[0][0])] + [len(v) for v in b], W, b)

def forward(net, x):
    """Exact evaluation: (list of pre-activation vectors per layer incl. output, output)."""
    pre = []
    for W, b in zip(net.W, net.b):
        h = [max(v, Z) for v in pre[-1]] if pre else list(x)
        pre.append([dot(row, h) + c for row, c in zip(W, b)])
    return pre, pre[-1]

def local_affine(net, pattern):
    """Per layer (output last), the affine forms (g, c), z = g.x + c, of the pattern-P pre-activations."""
    wellformed(len(pattern) == net.num_hidden, "E_PATTERN", 0, "pattern length is not N")
    bits, n0, layers, cur = iter(pattern), net.arch[0], [], [(row, Z) for row in eye(net.arch[0])]
    for W, b in zip(net.W, net.b):
        cols, consts = list(zip(*(g for g, _ in cur))), [c for _, c in cur]
        layers.append([([dot(row, col) for col in cols], c + dot(row, consts)) for row, c in zip(W, b)])
        cur = [z if next(bits, 1) else ([Z] * n0, Z) for z in layers[-1]]  # unused after the output layer
    return layers

def hidden_pre(net, x):
    """The hidden pre-activations at x, flat (one per pattern bit)."""
    return [v for z in forward(net, x)[0][:-1] for v in z]

def hidden_forms(net, pattern):
    """The forms of ``local_affine`` for the hidden neurons, flat (one per pattern bit)."""
    return [f for layer in local_affine(net, pattern)[:-1] for f in layer]

def in_region(net, pattern, points):
    """True iff at every point each hidden pattern-P pre-activation has the sign of its bit (spec-1.0.md, 5)."""
    forms = hidden_forms(net, pattern)
    return all(dot(g, x) + c >= 0 if p else dot(g, x) <= -c for x in points for p, (g, c) in zip(pattern, forms))

# What a kind module receives: .network, .other (Net or None), .body [(lineno, tokens)].
Cert = namedtuple("Cert", "version kind network other body")

def _digest(lines):
    return hashlib.sha256("".join(s + "\n" for s in lines).encode("ascii")).hexdigest()

def _net_block(lines, i, name):
    """Parse ``<name> begin`` .. ``<name> end`` and ``<name>-digest`` from line index i."""
    def at(k):
        wellformed(k < len(lines), "E_TRUNCATED", k, f"file ends inside the {name} block")
        return lines[k]
    wellformed(lines[i:i + 1] == [f"{name} begin"], "E_SYNTAX", i + 1, f"expected '{name} begin'")
    t = at(i + 1).split(" ")
    wellformed(t[0] == "arch" and len(t) >= 3, "E_SYNTAX", i + 2, "expected 'arch n0 ... nL', L >= 1")
    arch = ints(t[1:], i + 2)
    wellformed(min(arch) >= 1, "E_SHAPE", i + 2, "every width must be positive")
    k, W, b = i + 2, [], []
    for a, m in zip(arch, arch[1:]):  # the m rows of W_l, then b_l
        W.append([])
        for key, count in [("w", a)] * min(m, len(lines)) + [("b", m)]:  # a huge m: E_TRUNCATED or E_SHAPE
            t = at(k).split(" ")
            wellformed(t[0] == key and len(t) == count + 1, "E_SHAPE", k + 1, f"want {key}, {count} numbers")
            (W[-1].append if key == "w" else b.append)(qs(t[1:], k + 1))
            k += 1
    wellformed(at(k) == f"{name} end", "E_SYNTAX", k + 1, f"expected '{name} end'")
    t = re.fullmatch(f"{name}-digest ([0-9a-f]{{64}})", at(k + 1))
    wellformed(t, "E_SYNTAX", k + 2, f"expected '{name}-digest <64 lower-case hex>'")
    wellformed(t[1] == _digest(lines[i:k + 1]), "E_NETWORK_DIGEST", k + 2, f"{name} digest mismatch")
    return Net(arch, W, b), k + 1  # index of the digest line

def parse(text):
    """Parse the frame; returns a Cert or raises Malformed."""
    for n, line in enumerate(text.split("\n"), 1):
        bad = re.search("[^ -~]", line)
        wellformed(not bad, "E_CR" if "\r" in line else "E_BYTE", n,
                   f"byte {ord(bad.group()) if bad else 0:#x} is not allowed (printable ASCII and LF only)")
        wellformed(len(line) <= MAX_LINE, "E_LIMIT", n, f"line longer than {MAX_LINE} characters")
    wellformed(text.endswith("\n"), "E_TRUNCATED", text.count("\n") + 1, "file does not end with a line feed")
    lines = text[:-1].split("\n")
    for n, line in enumerate(lines, 1):  # tokens separated by single spaces
        wellformed(re.fullmatch("[^ ]+( [^ ]+)*", line), "E_SYNTAX", n, "empty line or stray spaces")
    m = re.fullmatch(r"exactnet certificate (0|[1-9][0-9]*)\.(0|[1-9][0-9]*)", lines[0])
    wellformed(m, "E_HEADER", 1, "first line must be 'exactnet certificate MAJOR.MINOR'")
    major, minor = int(m.group(1)), int(m.group(2))
    wellformed(major == MAJOR and minor <= MINOR, "E_VERSION", 1, f"version {major}.{minor} not supported")
    last = re.fullmatch("end ([0-9a-f]{64})", lines[-1])
    wellformed(last, "E_FOOTER", len(lines), "missing footer 'end <sha256>' (truncated file?)")
    wellformed(last[1] == _digest(lines[:-1]), "E_DIGEST", len(lines), "wrong footer digest")
    wellformed(len(lines) >= 4, "E_TRUNCATED", len(lines), "certificate too short")
    t = lines[1].split(" ")
    wellformed(t[0] == "kind" and len(t) == 2, "E_SYNTAX", 2, "second line must be 'kind <KIND>'")
    wellformed(t[1] in KINDS, "E_KIND", 2, f"unknown kind {t[1]!r}")
    net, k = _net_block(lines, 2, "network")
    other, k = _net_block(lines, k + 1, "other") if t[1] in TWO_NETWORKS else (None, k)
    conc = len(lines) - 2 > k and re.fullmatch("conclusion ([^ ]+)", lines[-2])
    wellformed(conc, "E_SYNTAX", len(lines) - 1, "expected 'conclusion <KIND>' before the footer")
    wellformed(conc[1] == t[1], "E_CONCLUSION", len(lines) - 1, f"conclusion {conc[1]!r} is not the kind")
    body = [(n + 1, lines[n].split(" ")) for n in range(k + 1, len(lines) - 2)]
    for n, toks in body:
        wellformed(toks[0] not in FRAME, "E_SYNTAX", n, f"frame keyword {toks[0]!r} inside the body")
    return Cert((major, minor), t[1], net, other, body)

def load_network_json(text):
    """An ``exactnet-network/1`` file as a Net; numbers are JSON integers or strings: integer, p/q, decimal."""
    def need(cond, msg):
        require(cond, "E_NETWORK_FILE", 0, msg, UsageError)
    def num(v, l):
        v = str(v) if isinstance(v, int) and not isinstance(v, bool) else v  # an int takes the string path
        m = isinstance(v, str) and re.fullmatch(r"-?\d{1,4000}(/\d{1,4000}|\.\d{1,4000})?", v.strip(), re.A)
        need(m and not re.fullmatch("/0+", m.group(1) or ""), f"layer {l}: not an exact number: {v!r}")
        return Fraction(m.group())
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:  # also too deep nesting, integers over Python's digit limit
        raise UsageError("E_NETWORK_FILE", 0, f"network file is not JSON: {str(e).split(';')[0]}") from None
    need(isinstance(obj, dict) and obj.get("format") == "exactnet-network/1", "format not exactnet-network/1")
    layers, W, b = obj.get("layers"), [], []
    need(isinstance(layers, list) and layers, "'layers' must be a non-empty list")
    for l, layer in enumerate(layers, 1):
        need(isinstance(layer, dict) and isinstance(layer.get("weights"), list)
             and isinstance(layer.get("biases"), list), f"layer {l}: needs lists 'weights' and 'biases'")
        rows = [[num(v, l) for v in r] if isinstance(r, list) else None for r in layer["weights"]]
        need(rows and None not in rows and len({len(r) for r in rows}) == 1 and rows[0]
             and len(rows[0]) == len(W[-1] if W else rows[0]) and len(layer["biases"]) == len(rows),
             f"layer {l}: weights must be a non-empty matrix fitting the layer before and the biases")
        W, b = W + [rows], b + [[num(v, l) for v in layer["biases"]]]
    return Net.of(W, b)

def check_text(text, network_json_text=None):
    """-> (exit_code, verdict_line, diagnostics list of 'c ...' lines); text may be bytes."""
    try:
        cert = parse(text.decode("latin-1") if isinstance(text, bytes) else text)  # parse reports a non-ASCII byte
        require(network_json_text is None or vars(load_network_json(network_json_text)) == vars(cert.network),
                "E_NETWORK_MISMATCH", 3, "the embedded network is not the given network file")
        name = "proofs.kind_" + cert.kind.lower().replace("-", "_")
        require(importlib.util.find_spec(name), "E_UNSUPPORTED", 2, f"no rule for kind {cert.kind}")
        importlib.import_module(name).check(cert)
    except CheckError as e:
        return e.exit_code, "s NOT VERIFIED", [f"c line {e.lineno} {e.code}: {e.msg}"]
    return 0, f"s VERIFIED {cert.kind}", []

def main(argv=None):
    a, net_path = list(sys.argv[1:] if argv is None else argv), None
    if len(a) == 3 and "--network" in a[:2]:
        net_path = a.pop(a.index("--network") + 1)
        a.remove("--network")
    if len(a) != 1 or a[0].startswith("-"):
        print("usage: python proofs/check.py CERT [--network NET.json]", file=sys.stderr)
        return 3
    try:  # check_text reads no file: OSError and UnicodeDecodeError come from reading the two files
        data, net_text = Path(a[0]).read_bytes(), None if net_path is None else Path(net_path).read_text("utf-8")
        code, verdict, diags = check_text(data, net_text)
    except (OSError, UnicodeDecodeError) as e:
        code, verdict, diags = 3, "s NOT VERIFIED", [f"c line 0 E_IO: {e}"]
    except Exception as e:  # a checker bug: never a traceback, never a verification (tests call check_text)
        code, verdict, diags = 2, "s NOT VERIFIED", [f"c line 0 E_INTERNAL: {type(e).__name__}: {e}"]
    print("\n".join([verdict] + diags))
    return code

if __name__ == "__main__":
    # through the package module, so that this script and the kind modules share one Reject class
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(importlib.import_module("proofs.check").main())
