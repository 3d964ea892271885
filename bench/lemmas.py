"""Every written form's lemmas by the paradigms run backwards (``gantha.search.form_lemmas``) on the whole index,
and what a lemma field would change for the ordinary (inflection-blind) search.

    python bench/lemmas.py [--sample N] [--field]
    python bench/lemmas.py --table

GANTHA_BENCH_INDEX: an index with the whole CST and the lexicon (default var/bench-index).

Prints, as JSON:
- ``backwards``: the time to index the lexicon backwards and to find the lemmas of every distinct folded form of
  the vocabulary, the lemmas per form, the share of forms (and of their occurrences) that name none;
- ``equal``: for ``N`` lemmas (those of the words of both query lists, then a random draw), whether the written
  forms that name a lemma backwards are exactly its family's (``Words.family``), whether the folded ones are the
  attested folded forms its proposed spellings fold to, and how many folded forms that adds to today's search
  (a proposed spelling unattested, another that folds alike attested);
- with ``--field``: a side tantivy index of the Pali paragraphs holding each word's lemmas (one term per lemma;
  ``lemma`` by folded form, ``lemma_written`` by written form), built here, and for each query list the ordinary
  search's word as today (BM25 over the union of its lemma's folded forms) and as one lemma term of each field:
  latency p50/p95 (top 10 with the count), totals fewer/equal/more than today's, the top-10 overlap.

``--table`` instead: every written form's lemmas tabulated into the index (``form_lemmas.tabulate``, all of them
again), then each list's words read as the ordinary search reads them (``Words.inflection``, nothing kept) with
each lemma's forms from the table and from the paradigms: time, p50/p95 a word, and whether all are the same.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sys
import time
from pathlib import Path

import tantivy

from backends import read_queries
from gantha.search import form_lemmas
from gantha.search.form_lemmas import FormLemmas
from gantha.search.words import Words
from gantha.store.embedded import EmbeddedStore
from gantha.text.pali import WORD_RE, canon, fold, unaccent

from common import INDEX, percentile

BENCH = Path(__file__).resolve().parent
LISTS = {"list 1": BENCH / "queries.txt", "list 2 (held out)": BENCH / "queries2.txt"}


Lemmas = dict[str, frozenset[str]]


def backwards(store: EmbeddedStore, words: Words) -> tuple[Lemmas, Lemmas, dict]:
    started = time.perf_counter()
    lemmas = FormLemmas(words)
    lemmas.lemmas("dhammo")  # the lexicon indexed backwards
    built = time.perf_counter() - started
    rows = store.db.query("SELECT fold, SUM(paragraphs) FROM vocab GROUP BY fold")
    started = time.perf_counter()
    by_form = lemmas.many(r[0] for r in rows)
    took = time.perf_counter() - started
    written = [r[0] for r in store.db.query("SELECT form FROM vocab")]
    started = time.perf_counter()
    by_written = lemmas.many(written, written=True)
    took_written = time.perf_counter() - started
    weight = {r[0]: r[1] for r in rows}
    named = [f for f, found in by_form.items() if found]
    return (
        by_form,
        by_written,
        {
            "lexicon_indexed_seconds": round(built, 1),
            "written_forms": len(by_written),
            "written_seconds": round(took_written, 1),
            "folded_forms": len(by_form),
            "seconds": round(took, 1),
            "microseconds_per_form": round(1e6 * took / len(by_form), 1),
            "lemmas_per_named_form": round(sum(len(by_form[f]) for f in named) / len(named), 2),
            "share_of_forms_named": round(len(named) / len(by_form), 3),
            "share_of_paragraph_occurrences_named": round(sum(weight[f] for f in named) / sum(weight.values()), 3),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        },
    )


def _chosen(words: Words) -> dict[str, str]:
    """The lemma today's search reads each query word as (headwords only): word → lemma."""
    out = {}
    for path in LISTS.values():
        for q in read_queries(path):
            inf = words.inflection(q)
            if inf and words.is_lemma(inf.lemma):
                out[q] = inf.lemma
    return out


def _named(by_form: Lemmas) -> dict[str, set[str]]:
    """Lemma → the forms that name it."""
    named: dict[str, set[str]] = {}
    for form, found in by_form.items():
        for lemma in found:
            named.setdefault(lemma, set()).add(form)
    return named


def equal(words: Words, by_form: Lemmas, by_written: Lemmas, chosen: dict[str, str], n: int) -> dict:
    """Backwards against forwards, lemma by lemma: folded (every attested folded form a proposed spelling folds
    to) and written (exactly ``Words.family``'s attested forms)."""
    named, named_written = _named(by_form), _named(by_written)
    attested = set(by_form)
    sample = list(dict.fromkeys(chosen.values()))
    sample += random.Random(7).sample(sorted(named.keys() - set(sample)), max(0, n - len(sample)))
    unequal, unequal_written, added, today_total = [], [], 0, 0
    for lemma in sample:
        forwards = {fold(f) for f in words._proposals(lemma)} & attested
        if named.get(lemma, set()) != forwards:
            unequal.append(lemma)
        family = {f.form for f in words.family(lemma, compounds=False).forms}
        if named_written.get(lemma, set()) != family:
            unequal_written.append(lemma)
        today = {fold(f) for f in family}
        added += len(forwards - today)
        today_total += len(today)
    return {
        "lemmas_checked": len(sample),
        "unequal_folded": len(unequal),
        "unequal_written": len(unequal_written),
        "unequal_examples": (unequal + unequal_written)[:10],
        "folded_forms_added_to_todays_families": added,
        "folded_forms_in_todays_families": today_total,
    }


def side_index(store: EmbeddedStore, by_form: Lemmas, by_written: Lemmas, folder: Path) -> tuple[tantivy.Index, dict]:
    """The Pali paragraphs with one term per lemma of each word: ``lemma`` by its folded spelling (every lemma a
    spelling of which folds alike), ``lemma_written`` by its spelling; ids as the store's."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for field in ("lemma", "lemma_written"):
        b.add_text_field(field, stored=False, tokenizer_name="whitespace", index_option="freq")
    index = tantivy.Index(b.build(), str(folder))
    writer = index.writer(heap_size=384_000_000, num_threads=2)
    started = time.perf_counter()
    n = 0
    for p in store.iter_passages("cst", "pali"):
        spelt = WORD_RE.findall(canon(p.text))
        folded = [lemma.replace(" ", "_") for w in spelt for lemma in by_form.get(unaccent(w), ())]
        written = [lemma.replace(" ", "_") for w in spelt for lemma in by_written.get(w, ())]
        writer.add_document(tantivy.Document(id=p.doc_id, lemma=" ".join(folded), lemma_written=" ".join(written)))
        n += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index, {"paragraphs": n, "seconds": round(time.perf_counter() - started, 1)}


def compare(store: EmbeddedStore, words: Words, side: tantivy.Index, queries: list[str]) -> dict:
    """Today's search of each lemma query (BM25 over the union of the folded forms) against one lemma term of
    each side field: latency, totals, top-10 overlap with today's."""
    main, lemmas = store._index.searcher(), side.searcher()
    schema = store.schema
    pali = tantivy.Query.const_score_query(tantivy.Query.term_query(schema, "channel", "pali"), 0.0)
    cases = []
    for q in queries:
        inf = words.inflection(q)
        if inf and words.is_lemma(inf.lemma) and len(inf.forms) > 1:
            forms = list(dict.fromkeys([q, *inf.forms]))
            union = tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "fold", f)) for f in forms]
            )
            today = tantivy.Query.boolean_query([(tantivy.Occur.Must, union), (tantivy.Occur.Must, pali)])
            term = inf.lemma.replace(" ", "_")
            fields = {f: tantivy.Query.term_query(side.schema, f, term) for f in ("lemma", "lemma_written")}
            cases.append((today, fields))
    out: dict = {"lemma_searches": len(cases)}
    for _ in range(2):  # the second pass is reported: the files in the page cache on both sides
        times: dict[str, list[float]] = {"today": [], "lemma": [], "lemma_written": []}
        overlap: dict[str, list[float]] = {"lemma": [], "lemma_written": []}
        totals: dict[str, list[int]] = {"lemma": [0, 0, 0], "lemma_written": [0, 0, 0]}  # fewer, equal, more
        for today, fields in cases:
            started = time.perf_counter()
            a = main.search(today, limit=10, count=True)
            times["today"].append(time.perf_counter() - started)
            ids_a = {main.doc(addr)["id"][0] for _, addr in a.hits}
            for field, query in fields.items():
                started = time.perf_counter()
                b = lemmas.search(query, limit=10, count=True)
                times[field].append(time.perf_counter() - started)
                ids_b = {lemmas.doc(addr)["id"][0] for _, addr in b.hits}
                overlap[field].append(len(ids_a & ids_b) / max(1, len(ids_a)))
                totals[field][(b.count > a.count) - (b.count < a.count) + 1] += 1
    for name, t in times.items():
        out[f"{name}_ms"] = {"p50": round(1000 * percentile(t, 50), 2), "p95": round(1000 * percentile(t, 95), 2)}
    for field in overlap:
        out[field] = {
            "top10_overlap_mean": round(sum(overlap[field]) / max(1, len(cases)), 3),
            "totals_fewer_equal_more": totals[field],
        }
    return out


def table(store: EmbeddedStore) -> dict:
    """The forms' lemmas tabulated afresh, then each list's inflections by the table and by the paradigms."""
    store.set_meta("form_lemmas", "")
    started = time.perf_counter()
    out: dict = {"tabulated_forms": form_lemmas.tabulate(store), "tabulate_s": round(time.perf_counter() - started, 1)}
    Words(store.lexicon(), store).inflection("dhammo")  # the lexicon's own caches (its lemmatizer) ready for both
    for name, path in LISTS.items():
        queries, found = read_queries(path), {}
        for by_table in (True, False):
            words = Words(store.lexicon(), store)
            words._kept.close()  # nothing kept beside the index: each inflection computed
            if not by_table:
                words._tabulated = lambda: False  # type: ignore[method-assign]
            times, got = [], []
            for q in queries:
                t = time.perf_counter()
                got.append(words.inflection(q))
                times.append((time.perf_counter() - t) * 1000)
            found[by_table] = got
            out[f"{name}, {'table' if by_table else 'paradigms'}"] = {
                "seconds": round(sum(times) / 1000, 2),
                "p50_ms": round(percentile(times, 50), 1),
                "p95_ms": round(percentile(times, 95), 1),
            }
        same = sum(a == b for a, b in zip(found[True], found[False], strict=True))
        out[f"{name}, the same inflections"] = f"{same}/{len(queries)}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=1000, help="lemmas checked forwards against backwards")
    parser.add_argument("--field", action="store_true", help="build the side index and compare the searches")
    parser.add_argument("--table", action="store_true", help="only: the forms' lemmas tabulated, inflections by them")
    args = parser.parse_args()
    store = EmbeddedStore(INDEX, create=False)
    if args.table:
        print(json.dumps(table(store), indent=1))
        return
    words = Words(store.lexicon(), store)
    by_form, by_written, report = backwards(store, words)
    out: dict = {"backwards": report}
    chosen = _chosen(words)
    out["equal"] = equal(words, by_form, by_written, chosen, args.sample)
    print(json.dumps(out, indent=1), file=sys.stderr, flush=True)
    if args.field:
        side, built = side_index(store, by_form, by_written, INDEX.parent / "bench-lemma-field")
        out["field"] = {"built": built}
        for name, path in LISTS.items():
            out["field"][name] = compare(store, words, side, read_queries(path))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
