package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// The pronet's keyword search syntax, as the real network documents it: "quoted phrases", bare
// words, AND, OR, NOT (upper case; in lower case they are ordinary words) and parentheses. A
// run of terms without an operator means all of them, so "a NOT b" is a AND NOT b and NOT may
// also lead. NOT binds tighter than AND, AND tighter than OR. Terms match case-insensitively as
// whole words or whole phrases (countWord), so revops also finds #revops.

const (
	pqMaxTerms = 100 // a longer query is refused rather than scanned against every post
	pqMaxDepth = 32  // nesting of parentheses and NOTs
)

// errPronetQuery marks a malformed keywords string; the provider answers it with a 400.
var errPronetQuery = errors.New("invalid keywords")

type pqKind uint8

const (
	pqTerm pqKind = iota
	pqAnd
	pqOr
	pqNot
)

// pqNode is one node of a parsed query: a term (an index into pronetQuery.terms) or an
// operator over its kids (NOT has exactly one).
type pqNode struct {
	kind pqKind
	term int
	kids []*pqNode
}

// pronetQuery is a parsed keywords string.
type pronetQuery struct {
	root     *pqNode
	terms    []string // distinct lower-case terms, phrases with single spaces
	positive []bool   // the term occurs outside every NOT, so it counts towards relevance
}

type pqTokKind uint8

const (
	pqtWord pqTokKind = iota
	pqtPhrase
	pqtLParen
	pqtRParen
	pqtAnd
	pqtOr
	pqtNot
)

type pqToken struct {
	kind pqTokKind
	text string // the term, lower-cased (words and phrases)
	pos  int    // byte offset in the query
}

func (t pqToken) String() string {
	switch t.kind {
	case pqtLParen:
		return "("
	case pqtRParen:
		return ")"
	case pqtAnd:
		return "AND"
	case pqtOr:
		return "OR"
	case pqtNot:
		return "NOT"
	}
	return fmt.Sprintf("%q", t.text)
}

// isQuerySpace reports ASCII white space, which separates words; other bytes belong to words.
func isQuerySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func pqErrorf(pos int, format string, args ...any) error {
	return fmt.Errorf("%w: %s (at position %d)", errPronetQuery, fmt.Sprintf(format, args...), pos+1)
}

func lexPronetQuery(s string) ([]pqToken, error) {
	var toks []pqToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isQuerySpace(c):
			i++
		case c == '(':
			toks = append(toks, pqToken{kind: pqtLParen, pos: i})
			i++
		case c == ')':
			toks = append(toks, pqToken{kind: pqtRParen, pos: i})
			i++
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, pqErrorf(i, "unbalanced quotes")
			}
			phrase := strings.Join(strings.FieldsFunc(strings.ToLower(s[i+1:i+1+j]), func(r rune) bool {
				return r < 0x80 && isQuerySpace(byte(r))
			}), " ")
			if phrase == "" {
				return nil, pqErrorf(i, "empty phrase")
			}
			toks = append(toks, pqToken{kind: pqtPhrase, text: phrase, pos: i})
			i += j + 2
		default:
			j := i
			for j < len(s) && !isQuerySpace(s[j]) && s[j] != '(' && s[j] != ')' && s[j] != '"' {
				j++
			}
			t := pqToken{kind: pqtWord, text: strings.ToLower(s[i:j]), pos: i}
			switch s[i:j] {
			case "AND":
				t.kind = pqtAnd
			case "OR":
				t.kind = pqtOr
			case "NOT":
				t.kind = pqtNot
			}
			toks = append(toks, t)
			i = j
		}
	}
	return toks, nil
}

type pqParser struct {
	toks  []pqToken
	i     int
	end   int // position reported for errors at the end of the query
	q     *pronetQuery
	index map[string]int
	depth int
}

// parsePronetQuery parses a keywords string; the error wraps errPronetQuery and says what is
// wrong and where.
func parsePronetQuery(s string) (*pronetQuery, error) {
	toks, err := lexPronetQuery(s)
	if err != nil {
		return nil, err
	}
	p := &pqParser{toks: toks, end: len(s), q: &pronetQuery{}, index: map[string]int{}}
	if len(toks) == 0 {
		return nil, pqErrorf(0, "no search terms")
	}
	root, err := p.or()
	if err != nil {
		return nil, err
	}
	if t, ok := p.peek(); ok { // only an unmatched ")" stops the top level early
		return nil, pqErrorf(t.pos, "unbalanced parentheses: %s without (", t)
	}
	p.q.root = root
	p.q.positive = make([]bool, len(p.q.terms))
	markPositive(root, p.q.positive, false)
	return p.q, nil
}

func markPositive(n *pqNode, pos []bool, negated bool) {
	switch n.kind {
	case pqTerm:
		if !negated {
			pos[n.term] = true
		}
	case pqNot:
		markPositive(n.kids[0], pos, !negated)
	default:
		for _, k := range n.kids {
			markPositive(k, pos, negated)
		}
	}
}

func (p *pqParser) peek() (pqToken, bool) {
	if p.i < len(p.toks) {
		return p.toks[p.i], true
	}
	return pqToken{}, false
}

// startsOperand reports whether the next token can begin an operand.
func (p *pqParser) startsOperand() bool {
	t, ok := p.peek()
	return ok && (t.kind == pqtWord || t.kind == pqtPhrase || t.kind == pqtLParen || t.kind == pqtNot)
}

// missing is the error for an operand that should follow op but does not.
func (p *pqParser) missing(op pqToken) error {
	if t, ok := p.peek(); ok {
		return pqErrorf(t.pos, "%s needs a term after it, not %s", op, t)
	}
	return pqErrorf(p.end, "dangling %s at the end", op)
}

func (p *pqParser) or() (*pqNode, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	kids := []*pqNode{first}
	for {
		t, ok := p.peek()
		if !ok || t.kind != pqtOr {
			break
		}
		p.i++
		if !p.startsOperand() {
			return nil, p.missing(t)
		}
		n, err := p.and()
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	return group(pqOr, kids), nil
}

func (p *pqParser) and() (*pqNode, error) {
	first, err := p.unary()
	if err != nil {
		return nil, err
	}
	kids := []*pqNode{first}
	for {
		t, ok := p.peek()
		if ok && t.kind == pqtAnd {
			p.i++
			if !p.startsOperand() {
				return nil, p.missing(t)
			}
		} else if !p.startsOperand() {
			break
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	return group(pqAnd, kids), nil
}

// group flattens nested groups of the same operator and returns a lone operand as it is.
func group(kind pqKind, kids []*pqNode) *pqNode {
	if len(kids) == 1 {
		return kids[0]
	}
	n := &pqNode{kind: kind}
	for _, k := range kids {
		if k.kind == kind {
			n.kids = append(n.kids, k.kids...)
		} else {
			n.kids = append(n.kids, k)
		}
	}
	return n
}

func (p *pqParser) unary() (*pqNode, error) {
	t, ok := p.peek()
	if !ok {
		return nil, pqErrorf(p.end, "missing a term at the end")
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > pqMaxDepth {
		return nil, pqErrorf(t.pos, "nested more than %d deep", pqMaxDepth)
	}
	switch t.kind {
	case pqtNot:
		p.i++
		if !p.startsOperand() {
			return nil, p.missing(t)
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		if n.kind == pqNot { // NOT NOT a is a
			return n.kids[0], nil
		}
		return &pqNode{kind: pqNot, kids: []*pqNode{n}}, nil
	case pqtWord, pqtPhrase:
		p.i++
		idx, seen := p.index[t.text]
		if !seen {
			if len(p.q.terms) == pqMaxTerms {
				return nil, pqErrorf(t.pos, "more than %d distinct terms", pqMaxTerms)
			}
			idx = len(p.q.terms)
			p.index[t.text] = idx
			p.q.terms = append(p.q.terms, t.text)
		}
		return &pqNode{kind: pqTerm, term: idx}, nil
	case pqtLParen:
		p.i++
		if c, ok := p.peek(); ok && c.kind == pqtRParen {
			return nil, pqErrorf(t.pos, "empty parentheses")
		}
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if c, ok := p.peek(); !ok || c.kind != pqtRParen {
			return nil, pqErrorf(t.pos, "unbalanced parentheses: ( without )")
		}
		p.i++
		return n, nil
	case pqtRParen:
		return nil, pqErrorf(t.pos, "unbalanced parentheses: ) without (")
	}
	return nil, pqErrorf(t.pos, "%s needs a term before it", t)
}

// match reports whether text satisfies the query, and how often the positive terms occur in
// it (the relevance of the match).
func (q *pronetQuery) match(text string) (ok bool, hits int) {
	lt := strings.ToLower(text)
	counts := make([]int, len(q.terms))
	for i, t := range q.terms {
		counts[i] = countWord(lt, t)
		if q.positive[i] {
			hits += counts[i]
		}
	}
	return q.root.eval(counts), hits
}

func (n *pqNode) eval(counts []int) bool {
	switch n.kind {
	case pqTerm:
		return counts[n.term] > 0
	case pqNot:
		return !n.kids[0].eval(counts)
	case pqAnd:
		for _, k := range n.kids {
			if !k.eval(counts) {
				return false
			}
		}
		return true
	default: // pqOr
		for _, k := range n.kids {
			if k.eval(counts) {
				return true
			}
		}
		return false
	}
}

// fault is the error path a magic identifier among the terms asks for (see checkIdent): any
// word of any term, negated or not, that begins with error- or ratelimited-. missing- words are
// ordinary words, which no post contains.
func (q *pronetQuery) fault() error {
	for _, t := range q.terms {
		for _, w := range strings.Split(t, " ") {
			if err := checkIdent(w); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// String writes the query back in the syntax, every term quoted, with parentheses only where
// precedence needs them; it parses to the same query.
func (q *pronetQuery) String() string {
	var sb strings.Builder
	q.root.write(&sb, q.terms, pqOr)
	return sb.String()
}

// write writes n as an operand of an operator of kind outer (pqOr at the top level).
func (n *pqNode) write(sb *strings.Builder, terms []string, outer pqKind) {
	switch n.kind {
	case pqTerm:
		sb.WriteString(`"` + terms[n.term] + `"`)
	case pqNot:
		sb.WriteString("NOT ")
		n.kids[0].write(sb, terms, pqNot)
	default:
		op := " AND "
		if n.kind == pqOr {
			op = " OR "
		}
		paren := outer == pqNot || n.kind == pqOr && outer == pqAnd
		if paren {
			sb.WriteString("(")
		}
		for i, k := range n.kids {
			if i > 0 {
				sb.WriteString(op)
			}
			k.write(sb, terms, n.kind)
		}
		if paren {
			sb.WriteString(")")
		}
	}
}
