// Package refdoc writes the tables of docs/reference.md from the code that
// reads the values: the GHOST_* variables from config.Vars and
// config.LauncherVars, the window info keys from redirect.HintDocs. Each
// table sits between two marker comments in the page; the prose around
// them is written by hand. `go generate ./internal/refdoc` (make generate)
// rewrites them, and a test fails when the committed page differs.
package refdoc

//go:generate go run ./mkreference -doc ../../docs/reference.md

import (
	"fmt"
	"os"
	"strings"

	"github.com/ghost-mpi/ghost/internal/config"
	"github.com/ghost-mpi/ghost/redirect"
)

// Tables are the generated tables by the name their markers carry.
var Tables = map[string]func() string{
	"variables": variablesTable,
	"info-keys": infoKeysTable,
}

const generator = "go generate ./internal/refdoc"

// Begin and End are the marker lines around the table called name.
func Begin(name string) string {
	return fmt.Sprintf("<!-- generated table %s: by %s from the code; do not edit -->", name, generator)
}

func End(name string) string { return fmt.Sprintf("<!-- end of generated table %s -->", name) }

// Render returns doc with every generated table rewritten. Every table of
// Tables must be marked in doc exactly once.
func Render(doc string) (string, error) {
	for name, table := range Tables {
		begin, end := Begin(name), End(name)
		if n := strings.Count(doc, begin); n != 1 {
			return "", fmt.Errorf("the page has %d lines %q, want 1", n, begin)
		}
		i := strings.Index(doc, begin) + len(begin)
		j := strings.Index(doc[i:], end)
		if j < 0 {
			return "", fmt.Errorf("no %q after %q", end, begin)
		}
		doc = doc[:i] + "\n" + table() + doc[i+j:]
	}
	return doc, nil
}

// RenderFile rewrites the generated tables of the file at path.
func RenderFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := Render(string(b))
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// cell makes text safe inside a table cell.
func cell(text string) string { return strings.ReplaceAll(text, "|", `\|`) }

// code puts a value in backticks when it is one word (a keyword, a number,
// an address) and leaves a phrase as prose.
func code(text string) string {
	if text == "" || strings.ContainsAny(text, " `") {
		return cell(text)
	}
	return "`" + text + "`"
}

func variablesTable() string {
	var b strings.Builder
	b.WriteString("| variable | alias | accepted values | default | read by |\n|---|---|---|---|---|\n")
	for _, vars := range [][]config.Var{config.Vars, config.LauncherVars} {
		for _, v := range vars {
			aliases := make([]string, len(v.Aliases))
			for i, a := range v.Aliases {
				aliases[i] = "`" + a + "`"
			}
			fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s | %s |\n", v.Name, strings.ToLower(v.Name),
				strings.Join(aliases, ", "), cell(v.Accepted), code(v.Default), cell(v.ReadBy))
		}
	}
	return b.String()
}

func infoKeysTable() string {
	var b strings.Builder
	b.WriteString("| key | accepted | default | meaning |\n|---|---|---|---|\n")
	for _, h := range redirect.HintDocs {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", h.Key, cell(h.Accepted), cell(h.Default), cell(h.Meaning))
	}
	return b.String()
}
