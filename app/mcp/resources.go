package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loupeapp/loupe/app/session"
	"github.com/loupeapp/loupe/data/store"
)

// Resource addresses.
const (
	tablePrefix  = "loupe://tables/"
	reportPrefix = "loupe://reports/"
)

// addResources offers each table's schema and notes, and each
// conversation's latest report; templates let a client read a table or a
// report added after the list was made.
func (s *Server) addResources(ctx context.Context) error {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "table", URITemplate: tablePrefix + "{name}", MIMEType: "text/markdown",
		Description: "A table's schema (columns and types) and the user's notes; no values."}, s.readResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "report", URITemplate: reportPrefix + "{conversation}", MIMEType: "text/markdown",
		Description: "The latest report written in a conversation (see write_report)."}, s.readResource)
	ds, err := s.cfg.Source.Catalog.Datasets(ctx)
	if err != nil {
		return fmt.Errorf("list the tables: %w", err)
	}
	for _, d := range ds {
		s.mcp.AddResource(&mcp.Resource{Name: d.Name, Title: "Table " + d.Name, URI: tablePrefix + url.PathEscape(d.Name),
			MIMEType: "text/markdown", Description: oneLine(d.Description())}, s.readResource)
	}
	convs, err := s.cfg.Store.Conversations(ctx)
	if err != nil {
		return fmt.Errorf("list the conversations: %w", err)
	}
	for _, c := range convs {
		reps, err := s.cfg.Store.Reports(ctx, c.ID)
		if err != nil {
			return fmt.Errorf("list the reports of %s: %w", c.ID, err)
		}
		if len(reps) > 0 {
			s.addReportResource(c.ID, reps[0].Title)
		}
	}
	return nil
}

func (s *Server) addReportResource(chat, title string) {
	s.mcp.AddResource(&mcp.Resource{Name: "report-" + chat, Title: title, URI: reportPrefix + url.PathEscape(chat),
		MIMEType: "text/markdown", Description: "The latest report of conversation " + chat}, s.readResource)
}

// readResource reads a table's schema or a report, through the gate; what
// was sent is kept in the outbox and the read in the call log.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	start := time.Now()
	ctx = s.gated(ctx)
	uri := req.Params.URI
	text, err := s.resourceText(ctx, uri)
	status := StatusOK
	if err == nil {
		if text, err = s.cfg.Gate.Send(ctx, "", text); err != nil {
			status, err = StatusPrivacy, &privacyError{err}
		}
	} else {
		status = StatusError
	}
	client := "client"
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			client = p.ClientInfo.Name
		}
	}
	s.cfg.Calls.Add(Call{At: start, Tool: "read " + uri, Client: client, Status: status, Millis: time.Since(start).Milliseconds(),
		Source: s.cfg.Label, Level: string(s.cfg.Gate.Level()), Error: errString(err)})
	if err != nil {
		return nil, err
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}
	s.keepBody(ctx, client, "resources/"+uri, nil, res)
	return res, nil
}

// resourceText is the text at uri; an unknown one is the SDK's not-found
// error.
func (s *Server) resourceText(ctx context.Context, uri string) (string, error) {
	switch {
	case strings.HasPrefix(uri, tablePrefix):
		name, err := url.PathUnescape(strings.TrimPrefix(uri, tablePrefix))
		if err != nil {
			return "", mcp.ResourceNotFoundError(uri)
		}
		ds, err := s.cfg.Source.Catalog.Datasets(ctx)
		if err != nil {
			return "", err
		}
		for _, d := range ds {
			if d.Name == name {
				return schemaText(d), nil
			}
		}
	case strings.HasPrefix(uri, reportPrefix):
		chat, err := url.PathUnescape(strings.TrimPrefix(uri, reportPrefix))
		if err != nil {
			return "", mcp.ResourceNotFoundError(uri)
		}
		rep, err := session.LatestReport(ctx, s.cfg.Store, chat)
		if errors.Is(err, store.ErrNotFound) || (err == nil && rep == nil) {
			return "", mcp.ResourceNotFoundError(uri)
		}
		if err != nil {
			return "", err
		}
		return rep.Report.Markdown(), nil
	}
	return "", mcp.ResourceNotFoundError(uri)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
