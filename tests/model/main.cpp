// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * model [--bound N] [--only NAME] [--mutant NAME]
 *
 * Each scenario has its own preemption bound (Scenario::bound), the
 * largest that keeps the whole run near half a minute on two cores;
 * --bound N overrides it for all.
 * Default: explore every scenario, print one line each and a total; exit 1
 * on any violation (printing the first counterexample of each scenario).
 * --mutant: stop at the first violation, print "mutant NAME: caught by
 * SCENARIO (trace N steps)" and its trace, or "mutant NAME: MISSED"; exit
 * 0 only if caught.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "model.hpp"

using namespace model;

int main(int argc, char **argv)
{
	int bound = -1; /* -1: each scenario's own */
	const char *only = nullptr;
	const char *mutant = nullptr;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bound") && i + 1 < argc)
			bound = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--mutant") && i + 1 < argc)
			mutant = argv[++i];
		else {
			fprintf(stderr,
				"usage: %s [--bound N] [--only NAME] "
				"[--mutant NAME]\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);

	int n;
	const Scenario *sc = scenarios(&n);
	uint64_t total = 0, bad = 0;
	int ran = 0;
	auto t0 = std::chrono::steady_clock::now();

	for (int i = 0; i < n; i++) {
		if (only && strcmp(only, sc[i].name))
			continue;
		ran++;
		int b = bound >= 0 ? bound : sc[i].bound;
		Result *r = new Result(explore(sc[i], b, mutant));
		fprintf(stderr, "  %s: preemption bound %d, longest schedule "
				"%llu steps\n",
			sc[i].name, b, (unsigned long long)r->max_steps);
		total += r->interleavings;
		bad += r->violations;
		if (mutant) {
			if (r->violations) {
				printf("mutant %s: caught by %s (trace %d "
				       "steps)\n",
				       mutant, sc[i].name, r->trace_len);
				printf("  violation: %s\n", r->message);
				print_trace(sc[i], *r);
				delete r;
				return 0;
			}
			delete r;
			continue;
		}
		printf("scenario %s: %llu interleavings, %llu violations\n",
		       sc[i].name, (unsigned long long)r->interleavings,
		       (unsigned long long)r->violations);
		if (r->violations) {
			printf("  first violation: %s\n", r->message);
			print_trace(sc[i], *r);
		}
		delete r;
	}
	double secs = std::chrono::duration<double>(
			      std::chrono::steady_clock::now() - t0)
			      .count();
	if (mutant) {
		printf("mutant %s: MISSED\n", mutant);
		return 1;
	}
	printf("model: %d scenarios, %llu interleavings, %llu violations\n",
	       ran, (unsigned long long)total, (unsigned long long)bad);
	fprintf(stderr, "model: %.1f s\n", secs);
	return bad ? 1 : 0;
}
