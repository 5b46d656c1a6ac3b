package harvestapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The vendor's items come from scraped pages: fields are null, missing, or a number one day
// and a string the next. These types read what they can and fail only on a value of another
// kind (an object where a string belongs), which makes the item malformed.

// str is a string read from a JSON string, number or null.
type str string

func (s *str) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*s = ""
	case b[0] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b):
		*s = str(b[1 : len(b)-1]) // no escapes: the decoder has checked the rest
	case b[0] == '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = str(v)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		*s = str(b)
	case string(b) == "true" || string(b) == "false":
		*s = ""
	default:
		return fmt.Errorf("want a string, got %.20s", b)
	}
	return nil
}

// num is an integer read from a JSON number, a numeric string or null; fractions are dropped.
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	}
	switch s {
	case "", "null", "true", "false":
		*n = 0
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = num(v)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if len(b) > 0 && b[0] == '"' {
			*n = 0 // a label such as "500+" where a count belongs: unknown
			return nil
		}
		return fmt.Errorf("want a number, got %.20s", b)
	}
	if f > 9e18 || f < -9e18 {
		f = 0
	}
	*n = num(f)
	return nil
}

// flag is a boolean read from true/false, "true"/"false", a number or null.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	switch strings.ToLower(s) {
	case "true", "1", "yes":
		*f = true
	case "false", "0", "no", "", "null":
		*f = false
	default:
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			*f = true
			return nil
		}
		return fmt.Errorf("want a boolean, got %.20s", b)
	}
	return nil
}
