//go:build !unix

package workspace_test

import "time"

// cpuTime is not measured here (0): the benchmarks report wall time.
func cpuTime() time.Duration { return 0 }
