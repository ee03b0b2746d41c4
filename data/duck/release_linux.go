//go:build linux && cgo

package duck

/*
#include <stddef.h>

// DuckDB's jemalloc, linked in with DuckDB under a prefix of its own, and
// the C library's malloc_trim (glibc); weak, so that a DuckDB built
// without jemalloc, or another C library, leaves the pointer NULL.
extern int duckdb_je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen) __attribute__((weak));
extern int malloc_trim(size_t pad) __attribute__((weak));

// loupe_duck_release returns to the system the freed pages of the C
// library's heap and of every jemalloc arena (MALLCTL_ARENAS_ALL, 4096);
// -1 when there is no jemalloc.
static int loupe_duck_release(void) {
	if (malloc_trim != NULL) {
		malloc_trim(0);
	}
	if (duckdb_je_mallctl == NULL) {
		return -1;
	}
	return duckdb_je_mallctl("arena.4096.purge", NULL, NULL, NULL, 0);
}
*/
import "C"

func releaseMemory() bool { return C.loupe_duck_release() == 0 }
