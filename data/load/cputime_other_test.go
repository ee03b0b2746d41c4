//go:build !unix

package load_test

import "time"

// cpuTime is not measured here (0): the benchmarks report wall time.
func cpuTime() time.Duration { return 0 }
