package secret

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// An unknown record is compared against the dummy hash, so the dummy must
// be a real hash of the checker's cost: then it takes as long as a known
// record's comparison.
func TestDummyHasTheCost(t *testing.T) {
	for _, cost := range []int{bcrypt.MinCost, bcrypt.MinCost + 2} {
		c := NewChecker(cost)
		if got, err := bcrypt.Cost(c.dummy); err != nil || got != cost {
			t.Errorf("dummy cost %d, %v; want %d", got, err, cost)
		}
		h, _ := c.Hash("x")
		if got, _ := bcrypt.Cost([]byte(h)); got != cost {
			t.Errorf("Hash cost %d, want %d", got, cost)
		}
	}
}
