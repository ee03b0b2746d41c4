package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// RefusedError says which tables the embedding model would not embed (a
// text too long for it, say): they are ranked by text alone until they
// change. Err is the model's answer to the first of them.
type RefusedError struct {
	Model  string
	Tables []string // their names, origin-qualified for remote origins
	Err    error
}

func (e *RefusedError) Error() string {
	names := e.Tables
	more := ""
	if len(names) > 3 {
		names, more = names[:3], fmt.Sprintf(" and %d more", len(e.Tables)-3)
	}
	return fmt.Sprintf("%s would not embed %d table(s) (%s%s), which are ranked by text alone until they change: %v",
		e.Model, len(e.Tables), strings.Join(names, ", "), more, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

func (e *RefusedError) add(t Table, err error) {
	if e.Err == nil {
		e.Err = err
	}
	name := t.Name
	if t.Origin != Workspace {
		name = t.Origin + ":" + t.Name
	}
	e.Tables = append(e.Tables, name)
}

// refusal is the model's refusal of one version of a table.
type refusal struct {
	version string
	err     error
}

// transient reports whether err says that trying again later may work (the
// model's server unreachable, busy or failing), as the providers' errors
// do through a Transient method.
func transient(err error) bool {
	var t interface{ Transient() bool }
	return errors.As(err, &t) && t.Transient()
}

// embedEach embeds batch one table at a time, after the model rejected it
// whole. It returns the tables it embedded with their vectors, and adds the
// ones the model rejects alone to refused (and to s.refused, so that later
// Syncs skip them). It fails, adding nothing, when a call fails
// transiently, ctx ends, or every table is rejected: then the model is
// failing, not the tables.
func (s *Semantic) embedEach(ctx context.Context, batch []Table, refused *RefusedError) ([]Table, [][]float32, error) {
	var (
		done    []Table
		vs      [][]float32
		bad     []Table
		badErrs []error
	)
	for _, t := range batch {
		v, err := s.emb.Embed(ctx, []string{embedText(t)})
		if err == nil && len(v) != 1 {
			err = fmt.Errorf("%d vectors for 1 text", len(v))
		}
		switch {
		case err != nil && (ctx.Err() != nil || transient(err)):
			return nil, nil, err
		case err != nil:
			bad, badErrs = append(bad, t), append(badErrs, err)
		default:
			done, vs = append(done, t), append(vs, v[0])
		}
	}
	if len(done) == 0 {
		return nil, nil, badErrs[0]
	}
	s.mu.Lock()
	for i, t := range bad {
		s.refused[t.id()] = refusal{version: t.version(), err: badErrs[i]}
		refused.add(t, badErrs[i])
	}
	s.mu.Unlock()
	return done, vs, nil
}
