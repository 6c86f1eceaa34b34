// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * model [--bound N] [--only NAME] [--mutant NAME --expect RULE] | --list
 *
 * Each scenario has its own preemption bound (Scenario::bound), the
 * largest that keeps the whole run near half a minute on two cores;
 * --bound N overrides it for all.
 * Default: explore every scenario, print one line each and a total; exit 1
 * on any violation (printing the first counterexample of each scenario).
 * --mutant NAME --expect RULE --only SCENARIO: the mutant is pinned to a
 * rule (G1..G8) and a scenario. Explore that scenario until a violation of
 * RULE: print "mutant NAME: caught by RULE in SCENARIO ..." and its trace,
 * exit 0. Otherwise (no violation, or only of other rules) print "mutant
 * NAME: MISSED ..." with what was found instead, exit 1.
 * NAME is a scenario's full name or its "S<k>" prefix.
 * --list: print the name of every scenario the code defines, one a line
 * (tests/model/scenarios.txt must list the same ones).
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model.hpp"

using namespace model;

namespace
{

/* "G6 x3, G8 x1" or "no violation" */
void found_instead(const Result &r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int k = 0; k < kNrRules && off < len; k++)
		if (r.by_rule[k])
			off += snprintf(buf + off, len - off, "%s%s x%llu",
					off ? ", " : "", rule_name(Rule(k)),
					(unsigned long long)r.by_rule[k]);
	if (!off)
		snprintf(buf, len, "no violation");
}

int run_mutant(const char *mutant, const char *expect, const Scenario *sc,
	       int bound)
{
	Rule want;

	if (!expect || !parse_pin_rule(expect, &want)) {
		printf("mutant %s: MISSED: not pinned to a rule G1..G8 "
		       "(--expect %s)\n",
		       mutant, expect ? expect : "missing");
		return 1;
	}
	if (!sc) {
		printf("mutant %s: MISSED: not pinned to a known scenario "
		       "(--only)\n",
		       mutant);
		return 1;
	}
	int b = bound >= 0 ? bound : sc->bound;
	Result *r = new Result(explore(*sc, b, want, true));
	int rc;

	if (r->found) {
		printf("mutant %s: caught by %s in %s (trace %d steps, "
		       "interleaving %llu)\n",
		       mutant, rule_name(want), sc->name, r->trace_len,
		       (unsigned long long)r->interleavings);
		printf("  violation: %s\n", r->message);
		print_trace(*sc, *r);
		rc = 0;
	} else {
		char what[256];
		found_instead(*r, what, sizeof(what));
		printf("mutant %s: MISSED: no %s violation in %s (bound %d, "
		       "%llu interleavings); found %s\n",
		       mutant, rule_name(want), sc->name, b,
		       (unsigned long long)r->interleavings, what);
		for (int k = 0; k < kNrRules; k++)
			if (r->by_rule[k])
				printf("  first %s violation: %s\n",
				       rule_name(Rule(k)), r->first_of[k]);
		rc = 1;
	}
	delete r;
	return rc;
}

} /* namespace */

int main(int argc, char **argv)
{
	int bound = -1; /* -1: each scenario's own */
	const char *only = nullptr;
	const char *mutant = nullptr;
	const char *expect = nullptr;
	int n;
	const Scenario *sc = scenarios(&n);

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (int k = 0; k < n; k++)
				printf("%s\n", sc[k].name);
			return 0;
		} else if (!strcmp(argv[i], "--bound") && i + 1 < argc)
			bound = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--mutant") && i + 1 < argc)
			mutant = argv[++i];
		else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
			expect = argv[++i];
		else {
			fprintf(stderr,
				"usage: %s [--bound N] [--only NAME] "
				"[--mutant NAME --expect G1..G8] | --list\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);

	const Scenario *pick = only ? find_scenario(only) : nullptr;

	if (mutant)
		return run_mutant(mutant, expect, pick, bound);

	uint64_t total = 0, bad = 0;
	int ran = 0;
	auto t0 = std::chrono::steady_clock::now();

	for (int i = 0; i < n; i++) {
		if (only && pick != &sc[i])
			continue;
		ran++;
		int b = bound >= 0 ? bound : sc[i].bound;
		auto t1 = std::chrono::steady_clock::now();
		Result *r = new Result(explore(sc[i], b, Rule::Any, false));
		fprintf(stderr, "  %s: preemption bound %d, longest schedule "
				"%llu steps, %.1f s\n",
			sc[i].name, b, (unsigned long long)r->max_steps,
			std::chrono::duration<double>(
				std::chrono::steady_clock::now() - t1)
				.count());
		total += r->interleavings;
		bad += r->violations;
		printf("scenario %s: %llu interleavings, %llu violations\n",
		       sc[i].name, (unsigned long long)r->interleavings,
		       (unsigned long long)r->violations);
		if (r->violations) {
			char what[256];
			found_instead(*r, what, sizeof(what));
			printf("  violations by rule: %s\n", what);
			printf("  first violation: %s\n", r->message);
			print_trace(sc[i], *r);
		}
		delete r;
	}
	double secs = std::chrono::duration<double>(
			      std::chrono::steady_clock::now() - t0)
			      .count();
	if (only && !ran) {
		fprintf(stderr, "model: no scenario %s\n", only);
		return 2;
	}
	printf("model: %d scenarios, %llu interleavings, %llu violations\n",
	       ran, (unsigned long long)total, (unsigned long long)bad);
	fprintf(stderr, "model: %.1f s\n", secs);
	return bad ? 1 : 0;
}
