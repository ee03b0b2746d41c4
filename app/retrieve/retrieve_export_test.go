package retrieve

import "time"

// SetBoostRetry shortens how long a failed embedding model is left alone,
// until the returned func restores it.
func SetBoostRetry(d time.Duration) func() {
	old := boostRetry
	boostRetry = d
	return func() { boostRetry = old }
}
