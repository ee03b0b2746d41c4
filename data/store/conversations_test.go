package store

import (
	"context"
	"testing"
)

func TestMoveWorkspaceRelabelsOnlyThatWorkspacesConversations(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	create := func(ws string) string {
		c, err := s.CreateConversation(ctx, "", ws)
		must(t, err)
		return c.ID
	}
	a, other, local, b := create("connection old"), create("connection older"), create("/ws"), create("connection old")
	_, r := ask(t, s, a, "how many tracks?", "run_1")
	must(t, r.Finish(ctx, Final{Status: Complete, Content: "3503"}))
	before, err := s.Conversations(ctx)
	must(t, err)

	n, err := s.MoveWorkspace(ctx, "connection old", "connection new")
	must(t, err)
	if n != 2 {
		t.Errorf("moved %d conversations, want 2", n)
	}
	after, err := s.Conversations(ctx)
	must(t, err)
	want := map[string]string{a: "connection new", b: "connection new", other: "connection older", local: "/ws"}
	for i, c := range after {
		if c.Workspace != want[c.ID] {
			t.Errorf("%s is about %q, want %q", c.ID, c.Workspace, want[c.ID])
		}
		if c.ID != before[i].ID || !c.Updated.Equal(before[i].Updated) {
			t.Errorf("order or update time changed at %d: %+v, was %+v", i, c, before[i])
		}
	}
	th, err := s.Thread(ctx, a)
	must(t, err)
	if len(th.Messages) != 2 {
		t.Errorf("the moved conversation has %d messages, want 2", len(th.Messages))
	}

	for _, tc := range []struct {
		name     string
		from, to string
	}{{"same name", "connection new", "connection new"}, {"nothing about it", "connection gone", "connection x"}} {
		n, err := s.MoveWorkspace(ctx, tc.from, tc.to)
		if err != nil || n != 0 {
			t.Errorf("%s: moved %d, %v; want 0, nil", tc.name, n, err)
		}
	}
	if _, err := s.MoveWorkspace(ctx, "connection new", " "); err == nil {
		t.Error("moving to an empty workspace was accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.MoveWorkspace(canceled, "connection new", "connection x"); err == nil {
		t.Error("a cancelled move succeeded")
	}
	c, err := s.Conversation(ctx, a)
	must(t, err)
	if c.Workspace != "connection new" {
		t.Errorf("after a cancelled move the conversation is about %q", c.Workspace)
	}
}
