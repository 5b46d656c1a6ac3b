package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Nesting limits, so that hostile input cannot exhaust the stack. The tree limit is what users
// meet; the syntax limit is twice as large because String may add parentheses (an AND inside an
// OR) and a negated group takes two levels, so a canonical string always parses again.
const (
	maxTreeDepth   = 100
	maxSyntaxDepth = 2 * maxTreeDepth
)

// Parse parses an X query string into an expression tree; syntax errors are *SyntaxError.
//
// Grammar (X's order of operations: clauses joined by spaces (AND) bind tighter than OR):
//
//	query   = or EOF
//	or      = and { "OR" and }
//	and     = unary { unary }
//	unary   = [ "-" ] primary
//	primary = "(" or ")" | "\"phrase\"" | operator | #tag | @user | $cashtag | keyword
//
// Besides syntax, Parse rejects what X rejects: unknown operators, a query without a positive
// standalone clause in every OR branch (has:media alone, -from:x alone), is:nullcast without
// '-', and more than one list: operator.
func Parse(q string) (*Expr, error) {
	p := parser{lx: lexer{src: q}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, &SyntaxError{Pos: 0, Msg: "empty query"}
	}
	e, err := p.parseOr(false)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, &SyntaxError{Pos: p.tok.start, Msg: "unmatched ')'"}
	}
	if treeDepth(e) > maxTreeDepth {
		return nil, &SyntaxError{Pos: 0, Msg: "query nested too deeply"}
	}
	if !anchored(e) {
		return nil, &SyntaxError{Pos: 0, Msg: "query needs a keyword, phrase or standalone operator in every OR branch; " +
			"lang:, is:, has: and negated clauses cannot be used alone"}
	}
	return e, nil
}

type parser struct {
	lx    lexer
	tok   token
	depth int
	lists int
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) parseOr(neg bool) (*Expr, error) {
	first, err := p.parseAnd(neg)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokOr {
		return first, nil
	}
	children := flatten(nil, first, KindOr)
	for p.tok.kind == tokOr {
		orPos := p.tok.start
		if err := p.advance(); err != nil {
			return nil, err
		}
		if k := p.tok.kind; k == tokEOF || k == tokRParen || k == tokOr {
			return nil, &SyntaxError{Pos: orPos, Msg: "OR must stand between two clauses"}
		}
		next, err := p.parseAnd(neg)
		if err != nil {
			return nil, err
		}
		children = flatten(children, next, KindOr)
	}
	return &Expr{Kind: KindOr, Children: children}, nil
}

func (p *parser) parseAnd(neg bool) (*Expr, error) {
	var children []*Expr
	for {
		switch p.tok.kind {
		case tokLParen, tokNeg, tokWord, tokPhrase:
			e, err := p.parseUnary(neg)
			if err != nil {
				return nil, err
			}
			children = flatten(children, e, KindAnd)
			continue
		}
		break
	}
	switch {
	case len(children) == 1:
		return children[0], nil
	case len(children) > 1:
		return &Expr{Kind: KindAnd, Children: children}, nil
	}
	switch p.tok.kind {
	case tokOr:
		return nil, &SyntaxError{Pos: p.tok.start, Msg: "OR must stand between two clauses"}
	case tokRParen:
		return nil, &SyntaxError{Pos: p.tok.start, Msg: "unexpected ')'"}
	}
	return nil, &SyntaxError{Pos: p.tok.start, Msg: "expected a clause"}
}

// flatten appends e to list, splicing in its children when it is of the same associative kind.
func flatten(list []*Expr, e *Expr, kind Kind) []*Expr {
	if e.Kind == kind {
		return append(list, e.Children...)
	}
	return append(list, e)
}

func (p *parser) parseUnary(neg bool) (*Expr, error) {
	if p.tok.kind != tokNeg {
		return p.parsePrimary(neg)
	}
	if err := p.enter(p.tok.start); err != nil {
		return nil, err
	}
	defer p.leave()
	if err := p.advance(); err != nil {
		return nil, err
	}
	switch p.tok.kind {
	case tokLParen, tokWord, tokPhrase:
	default:
		return nil, &SyntaxError{Pos: p.tok.start, Msg: "'-' must be directly followed by a term"}
	}
	e, err := p.parsePrimary(!neg)
	if err != nil {
		return nil, err
	}
	return &Expr{Kind: KindNot, Children: []*Expr{e}}, nil
}

func (p *parser) enter(pos int) error {
	p.depth++
	if p.depth > maxSyntaxDepth {
		return &SyntaxError{Pos: pos, Msg: "query nested too deeply"}
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) parsePrimary(neg bool) (*Expr, error) {
	t := p.tok
	switch t.kind {
	case tokLParen:
		if err := p.enter(t.start); err != nil {
			return nil, err
		}
		defer p.leave()
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tokRParen {
			return nil, &SyntaxError{Pos: t.start, Msg: "empty group"}
		}
		e, err := p.parseOr(neg)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, &SyntaxError{Pos: t.start, Msg: "missing ')'"}
		}
		return e, p.advance()
	case tokPhrase:
		if t.text == "" {
			return nil, &SyntaxError{Pos: t.start, Msg: "empty quoted phrase"}
		}
		return &Expr{Kind: KindPhrase, Value: t.text}, p.advance()
	case tokWord:
		return p.parseWord(neg)
	}
	return nil, &SyntaxError{Pos: t.start, Msg: "expected a clause"}
}

func (p *parser) parseWord(neg bool) (*Expr, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return nil, err
	}
	kind, name, value := classifyWord(t.text)
	if kind != KindOperator {
		return &Expr{Kind: kind, Value: value}, nil
	}
	if value == "" && p.tok.kind == tokPhrase && p.tok.start == t.end {
		// url:"https://example.com": the quoted value is glued to the operator.
		value = p.tok.text
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if value == "" {
		return nil, &SyntaxError{Pos: t.start, Msg: name + ": needs a value"}
	}
	if isFlagOperator(name) {
		v, ok := flagValue(name, strings.ToLower(value))
		if !ok {
			return nil, &SyntaxError{Pos: t.start, Msg: "unknown operator " + name + ":" + value}
		}
		if v == "nullcast" && !neg {
			return nil, &SyntaxError{Pos: t.start, Msg: "is:nullcast must be negated"}
		}
		return &Expr{Kind: KindOperator, Op: name, Value: v}, nil
	}
	if _, ok := valueOperator(name); !ok {
		return nil, &SyntaxError{Pos: t.start, Msg: "unknown operator " + name + ":"}
	}
	if name == "list" {
		p.lists++
		if p.lists > 1 {
			return nil, &SyntaxError{Pos: t.start, Msg: "only one list: operator is allowed per query"}
		}
	}
	return &Expr{Kind: KindOperator, Op: name, Value: value}, nil
}

// classifyWord says what a bare word is: an entity (#tag, @user, $CASH), an operator (name made
// of ASCII letters and '_' before the first ':'; name returned in lower case) or a keyword.
func classifyWord(w string) (kind Kind, name, value string) {
	if len(w) > 1 {
		switch w[0] {
		case '#':
			return KindHashtag, "", w[1:]
		case '@':
			return KindMention, "", w[1:]
		case '$':
			if r, _ := utf8.DecodeRuneInString(w[1:]); unicode.IsLetter(r) {
				return KindCashtag, "", w[1:]
			}
		}
	}
	if i := strings.IndexByte(w, ':'); i > 0 && isOperatorName(w[:i]) {
		return KindOperator, strings.ToLower(w[:i]), w[i+1:]
	}
	return KindTerm, "", w
}

func isOperatorName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

func treeDepth(e *Expr) int {
	d := 0
	for _, c := range e.Children {
		d = max(d, treeDepth(c))
	}
	return d + 1
}
