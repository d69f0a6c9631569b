package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sglaunch/sglaunch/internal/inputerr"
)

// FailureBudget is how many failed requests a run may have and still
// succeed: a count, or a percentage of the measured requests. The zero
// budget allows none.
type FailureBudget struct {
	Count   int
	Percent float64 // used when IsPercent
	// IsPercent says the budget is Percent of the requests.
	IsPercent bool
}

// ParseFailureBudget reads --max-failures: "N" requests or "P%" of them.
func ParseFailureBudget(s string) (FailureBudget, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return FailureBudget{}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || v > 100 {
			return FailureBudget{}, inputerr.Errorf("--max-failures %q: want a count (5) or a percentage from 0%% to 100%% (2.5%%)", s)
		}
		return FailureBudget{Percent: v, IsPercent: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return FailureBudget{}, inputerr.Errorf("--max-failures %q: want a count (5) or a percentage (2.5%%)", s)
	}
	return FailureBudget{Count: n}, nil
}

// String is the budget as the flag writes it.
func (b FailureBudget) String() string {
	if b.IsPercent {
		return strconv.FormatFloat(b.Percent, 'g', -1, 64) + "%"
	}
	return strconv.Itoa(b.Count)
}

// Exceeded reports whether failed of total requests is over the budget.
func (b FailureBudget) Exceeded(failed, total int) bool {
	if b.IsPercent {
		return total > 0 && float64(failed)*100 > b.Percent*float64(total)
	}
	return failed > b.Count
}

// check turns a record's failures into the run's error when they pass
// the budget.
func (b FailureBudget) check(r *Record) error {
	if r.Status != StatusPartial || !b.Exceeded(r.FailedRequests, r.Requests) {
		return nil
	}
	return fmt.Errorf("%w: %d of %d requests failed, more than --max-failures %s allows", ErrTooManyFailures, r.FailedRequests, r.Requests, b)
}
