package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a length of time written in a config file as a Go duration
// string such as "90s" or "2m". Zero is unset; a set value is positive.
type Duration time.Duration

// UnmarshalJSON reads a Go duration string and refuses a value that is
// not one, or not positive.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s is not a string: expected a Go duration such as \"90s\" or \"2m\"", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("invalid duration %q: expected a Go duration such as \"90s\" or \"2m\"", s)
	}
	if v <= 0 {
		return fmt.Errorf("duration %q must be more than 0", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// String returns the duration as Go writes it ("1m30s"), or "" when unset.
func (d Duration) String() string {
	if d == 0 {
		return ""
	}
	return time.Duration(d).String()
}
