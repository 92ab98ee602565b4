"""Regenerate the checker corpus (run from the repository root: python tests/certs/generate.py).

valid/<name>.cert must verify; invalid/<name>__<CODE>.cert must be rejected (exit 1) and
malformed/<name>__<CODE>.cert malformed (exit 2) with that reason code.  The bad files are
made from the valid ones by one targeted edit each; digests are recomputed where the point
of the file is a later check (``fix``), so that the intended code, not E_DIGEST, fires.
"""

import hashlib
import os
import sys

sys.path.insert(0, os.getcwd())
from exactnet import fdim  # noqa: E402
from exactnet.certificate import locally_identifiable_body, not_equivalent_body, write_certificate  # noqa: E402
from exactnet.examples import example  # noqa: E402
from exactnet.network import Network  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _dig(lines):
    return hashlib.sha256("".join(s + "\n" for s in lines).encode()).hexdigest()


def fix(text, networks=True):
    """Recompute the network digests (unless told not to) and the footer of an edited certificate."""
    lines = text[:-1].split("\n")
    for name in ("network", "other") if networks else ():
        if f"{name} begin" in lines:
            i, j = lines.index(f"{name} begin"), lines.index(f"{name} end")
            lines[j + 1] = f"{name}-digest {_dig(lines[i:j + 1])}"
    lines[-1] = f"end {_dig(lines[:-1])}"
    return "\n".join(lines) + "\n"


def edit(text, old, new, count=1):
    assert old in text, old
    return text.replace(old, new, count)


def keep_points(text, k):
    """Keep only the first k point lines of a LOCALLY-IDENTIFIABLE certificate."""
    lines = text[:-1].split("\n")
    idx = [i for i, s in enumerate(lines) if s.startswith("point ")]
    lines = [s for i, s in enumerate(lines) if i not in idx[k:]]
    lines = [f"points {k}" if s.startswith("points ") else s for s in lines]
    return "\n".join(lines) + "\n"


def save(folder, name, text, mode="w"):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, name), mode + ("b" if isinstance(text, bytes) else ""),
              **({} if isinstance(text, bytes) else {"newline": ""})) as fh:
        fh.write(text)


def main():
    A, C = example("A"), example("C")
    certs = {}
    for nm, net in (("a", A), ("c", C)):
        res = fdim.functional_dimension(net)
        certs[f"li_{nm}_rank"] = write_certificate("LOCALLY-IDENTIFIABLE", net,
                                                   locally_identifiable_body(net, res.certificate_points()))
        certs[f"li_{nm}_minor"] = write_certificate(
            "LOCALLY-IDENTIFIABLE", net,
            locally_identifiable_body(net, res.points, list(res.rank.rows), list(res.rank.cols)))
    A2 = Network.from_lists([([[1, 0], [0, 1], [-1, -1]], [0, 0, 2]), ([[1, 1, 1]], [0])])
    certs["ne_a"] = write_certificate("NOT-EQUIVALENT", A, not_equivalent_body(A, A2, [0, 0]), other=A2)
    from exactnet.cert_depth import not_shallow_certificate
    from exactnet.cert_regions import regions_certificate
    from exactnet.equivalence import equivalent_body
    from exactnet.regions import compute_regions

    certs["regions_c"] = regions_certificate(compute_regions(C))
    certs["not_shallow_c"] = not_shallow_certificate(C)
    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    certs["eq_a_flipped"] = write_certificate("EQUIVALENT", A, equivalent_body(A, flipped), other=flipped)
    from exactnet.certify import certify

    certs["hidden_symmetry_a"] = certify(A).certificate
    certs["identifiable_2_2_1"] = certify(Network.from_lists([([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])])).certificate
    for k, t in certs.items():
        save("valid", k + ".cert", t)
    li, mi, ne = certs["li_a_rank"], certs["li_c_minor"], certs["ne_a"]
    bad = {
        "invalid": {
            "rank_not_d_minus_n__E_RANK": fix(edit(li, "rank 10", "rank 9")),
            "point_on_breakpoint__E_NOT_STRICT": fix(edit(li, "point 1/4 1/4", "point 0 1/4")),
            "too_few_points__E_RANK_LOW": fix(keep_points(li, 2)),
            "det_wrong__E_DET_MISMATCH": fix(edit(mi, "det -", "det ")),
            "col_out_of_range__E_INDEX": fix(edit(mi, "\ncols 0 ", "\ncols 99 ")),
            "minor_small__E_MINOR_SIZE": fix(edit(mi, "\ncols 0 ", "\ncols ")),
            "zero_row__E_ZERO_ROW": fix(edit(li, "w 0 1\n", "w 0 0\n").replace("b 0 0 1", "b 0 0 1", 1)
                                        .replace("b 0 0 1", "b 0 0 1")),
            "wrong_value__E_VALUE": fix(edit(ne, "\nvalue 1", "\nvalue 2")),
            "same_value__E_EQUAL": fix(edit(edit(ne, "b 0 0 2", "b 0 0 1"), "other-value 2", "other-value 1")),
        },
        "malformed": {
            "no_footer__E_FOOTER": li.rsplit("end ", 1)[0],
            "truncated__E_TRUNCATED": li[:-1],
            "footer_digest__E_DIGEST": edit(li, "point 1/4 1/4", "point 1/4 1/3"),
            "weight_without_digest__E_NETWORK_DIGEST": fix(edit(li, "w 1 1 1", "w 1 1 2"), networks=False),
            "version_major__E_VERSION": fix(edit(li, "certificate 1.0", "certificate 2.0")),
            "version_minor__E_VERSION": fix(edit(li, "certificate 1.0", "certificate 1.1")),
            "header__E_HEADER": fix(edit(li, "exactnet certificate", "exactnet certificat")),
            "unknown_kind__E_KIND": fix(edit(edit(li, "kind LOCALLY-IDENTIFIABLE", "kind LOCALLY-IDENTICAL"),
                                             "conclusion LOCALLY-IDENTIFIABLE", "conclusion LOCALLY-IDENTICAL")),
            "conclusion_differs__E_CONCLUSION": fix(edit(li, "conclusion LOCALLY-IDENTIFIABLE", "conclusion IDENTIFIABLE")),
            "non_canonical_slash_one__E_NUMBER": fix(edit(li, "point 1 1\n", "point 1/1 1\n")),
            "non_canonical_unreduced__E_NUMBER": fix(edit(li, "point 1/4 1/4", "point 2/8 1/4")),
            "non_canonical_minus_zero__E_NUMBER": fix(edit(li, "w 1 0", "w 1 -0")),
            "decimal__E_NUMBER": fix(edit(li, "point 1/4 1/4", "point 0.25 1/4")),
            "leading_zero__E_NUMBER": fix(edit(li, "point 1 2", "point 01 2")),
            "digit_limit__E_LIMIT": fix(edit(li, "point 1 2", "point 1 " + "9" * 4001)),
            "unknown_keyword__E_SYNTAX": fix(edit(li, "points 10", "points 10\nfoo 1")),
            "double_space__E_SYNTAX": fix(edit(li, "point 1 2", "point 1  2")),
            "shape__E_SHAPE": fix(edit(li, "w 0 1\n", "w 0 1 5\n")),
            "point_shape__E_SHAPE": fix(edit(li, "point 1 2", "point 1 2 3")),
            "missing_other__E_SYNTAX": fix(ne.split("other begin\n")[0] + "witness" + ne.split("\nwitness", 1)[1]),
            "crlf__E_CR": li.replace("\n", "\r\n"),
            "non_ascii__E_BYTE": fix(edit(li, "point 1 2", "point 1 \u0662")).encode("utf-8"),
        },
    }
    for folder, items in bad.items():
        for name, text in items.items():
            if text is not None:
                save(folder, name + ".cert", text)
    # rule shallow-2 corpus (its generator lives with the producer)
    from exactnet.cert_shallow import corpus_certificates  # noqa: PLC0415

    for rel, text in corpus_certificates().items():
        save(*rel.split("/"), text)
    modulus_corpus()


def modulus_corpus():
    """Rule shallow-1 with 'exclude modulus' steps (proofs/lemmas/shallow.md, Lemma 4): one valid
    certificate and its targeted edits. Run alone: python tests/certs/generate.py modulus."""
    from exactnet.certify import certify
    from exactnet.randnet import random_network

    mod = certify(random_network([2, 6, 1], seed=2, max_num=30, max_den=30)).certificate
    save("valid", "identifiable_modulus_2_6_1.cert", mod)
    for name, old, new in (("modulus_one__E_MODULUS", "exclude modulus 3 0", "exclude modulus 1 0"),
                           ("modulus_zero_sum_residues__E_MODULUS", "exclude modulus 3 0", "exclude modulus 2 0"),
                           ("modulus_coordinate__E_MODULUS", "exclude modulus 3 0", "exclude modulus 3 2"),
                           ("modulus_missing__E_NOT_POSITIVE", "exclude modulus 3 0\n", "")):
        save("invalid", name + ".cert", fix(edit(mod, old, new)))


if __name__ == "__main__":
    if sys.argv[1:] == ["modulus"]:
        modulus_corpus()
        sys.exit()
    main()
