package duck

// ReleaseMemory has the allocators of DuckDB return to the system, now,
// the memory they hold freed. On Linux DuckDB allocates its buffers and
// vectors through its own jemalloc, which keeps the pages a statement
// freed for a second or so (its decay time) before it gives them back in
// the background, and the rest (its catalog, statistics, metadata)
// through the C library's malloc, which keeps what was freed inside its
// heap. A wide load runs statements faster than that decay, each freeing
// tens of MB (the CSV buffers and vectors of a part's 500 columns), and
// those freed pages, not what DuckDB holds, were most of its peak: at
// 30,000 columns 0.2 GB of 0.4-0.56 GB. A caller that has just ended
// such statements calls it; it costs a few milliseconds. It reports
// whether it reached DuckDB's allocator: elsewhere, or with a DuckDB
// built without jemalloc, it does nothing.
func ReleaseMemory() bool { return releaseMemory() }
