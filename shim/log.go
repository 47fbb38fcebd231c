package main

import (
	"fmt"
	"os"

	"github.com/ghost-mpi/ghost/internal/config"
)

// logger prints Ghost's own messages to stderr, prefixed so they stand apart
// from the application's output. Errors always print.
type logger struct {
	level config.Level
	who   string
}

func (l *logger) printf(level config.Level, format string, args ...any) {
	if level > l.level && level != config.LevelError {
		return
	}
	fmt.Fprintf(os.Stderr, "ghost: %s"+format+"\n", append([]any{l.who}, args...)...)
}

func (l *logger) errorf(format string, args ...any) {
	l.printf(config.LevelError, "error: "+format, args...)
}
func (l *logger) warnf(format string, args ...any) {
	l.printf(config.LevelWarn, "warning: "+format, args...)
}
func (l *logger) infof(format string, args ...any)  { l.printf(config.LevelInfo, format, args...) }
func (l *logger) debugf(format string, args ...any) { l.printf(config.LevelDebug, format, args...) }
