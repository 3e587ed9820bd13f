package engine

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/pgtrial/pgtrial/internal/script"
)

// commandFailed is pgbench's commandFailed.
func (c *client) commandFailed(i int, cmd, msg string) step {
	c.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, i, cmd, c.script, msg)
	c.es = esMeta
	return stepAbort
}

// pipelineSync is the sync that \syncpipeline and \endpipeline (cmd) send
// in pipeline mode, flushed.
func (c *client) pipelineSync(i int, cmd string) step {
	if !c.pipeline {
		return c.commandFailed(i, cmd, "not in pipeline mode")
	}
	c.conn.sendSync()
	c.numSyncs++
	if err := c.conn.flush(); err != nil {
		return c.commandFailed(i, cmd, "failed to send a pipeline sync")
	}
	return stepOK
}

func (c *client) metaCommand(i int, cmd *script.Command) step {
	e := c.e
	cfg := e.cfg
	sc := c.sc
	if cfg.Debug {
		c.debugf("client %d executing \\%s", c.id, strings.Join(cmd.Args, " "))
	}
	switch cmd.Meta {
	case script.MetaSleep:
		usec, err := sc.SleepMicros(i)
		if err != nil {
			return c.execFailed(i, err)
		}
		if usec > 0 {
			c.sleepUntil(e.now() + int64(usec))
		}
	case script.MetaShell, script.MetaSetShell:
		return c.shell(i, cmd)
	case script.MetaThink:
		return c.think(i)
	case script.MetaTally:
		if err := sc.Tally(i, c.tallyNow()); err != nil {
			return c.execFailed(i, err)
		}
	case script.MetaWhile:
		// A loop stops at the end of the run (interruption, exit on
		// abort, the cut at -T's end) rather than run on until its
		// iteration limit: the transaction is not counted (cut as
		// unfinished under CutAtEnd).
		if e.stopped.Load() {
			return stepFinish
		}
		if err := sc.Exec(i); err != nil {
			return c.execFailed(i, err)
		}
	case script.MetaStartPipeline:
		if cfg.Mode == script.Simple {
			return c.commandFailed(i, "startpipeline", "cannot use pipeline mode with the simple query protocol")
		}
		if cfg.Mode == script.Prepared {
			cmds := cfg.Program.Scripts[c.script].Commands
			for j := i + 1; j < len(cmds); j++ {
				if cmds[j].Kind == script.MetaCommand && cmds[j].Meta == script.MetaEndPipeline {
					break
				}
				if cmds[j].Kind == script.SQLCommand {
					if st := c.prepare(j, cmds[j]); st != stepOK {
						return st
					}
				}
			}
		}
		if c.pipeline {
			return c.commandFailed(i, "startpipeline", "already in pipeline mode")
		}
		c.pipeline = true
		c.numSyncs = 0
	case script.MetaSyncPipeline:
		if st := c.pipelineSync(i, "syncpipeline"); st != stepOK {
			return st
		}
	case script.MetaEndPipeline:
		if st := c.pipelineSync(i, "endpipeline"); st != stepOK {
			return st
		}
		return c.readPipeline(i)
	default:
		if err := sc.Exec(i); err != nil {
			return c.execFailed(i, err)
		}
	}
	return stepOK
}

// execFailed reports a meta-command's run-time error and aborts.
func (c *client) execFailed(i int, err error) step {
	var ee *script.ExecError
	if errors.As(err, &ee) {
		if ee.Msg != "" {
			c.errorf("%s", ee.Msg)
		}
		c.errorf("%s", ee.AbortLine(c.id, i, c.script))
	} else {
		c.errorf("client %d aborted in command %d of script %d; %v", c.id, i, c.script, err)
	}
	c.es = esMeta
	return stepAbort
}

// shell runs \shell or \setshell with system()/popen() semantics: sh -c,
// \shell's output on our stdout, \setshell's first line stored.
func (c *client) shell(i int, cmd *script.Command) step {
	e := c.e
	line, err := c.sc.ShellCommand(i)
	if err != nil {
		return c.execFailed(i, err)
	}
	prog := cmd.Args[1]
	kind := "shell"
	if cmd.Meta == script.MetaSetShell {
		prog = cmd.Args[2]
		kind = "setshell"
	}
	sh := exec.Command("/bin/sh", "-c", line)
	sh.Stdin = os.Stdin
	sh.Stderr = os.Stderr
	if cmd.Meta == script.MetaShell {
		if e.cfg.Stdout != nil {
			sh.Stdout = e.cfg.Stdout
		} else {
			sh.Stdout = os.Stdout
		}
		if err := sh.Run(); err != nil {
			if !e.timerHit.Load() {
				c.errorf("%s: could not launch shell command", prog)
			}
			return c.commandFailed(i, kind, "execution of meta-command failed")
		}
		return stepOK
	}
	var out bytes.Buffer
	sh.Stdout = &out
	if err := sh.Start(); err != nil {
		c.errorf("%s: could not launch shell command", prog)
		return c.commandFailed(i, kind, "execution of meta-command failed")
	}
	sh.Wait() // pclose's status is not checked by pgbench beyond < 0
	if err := c.sc.StoreShellResult(i, out.Bytes()); err != nil {
		var ee *script.ExecError
		if errors.As(err, &ee) && ee.Msg != "" && !e.timerHit.Load() {
			c.errorf("%s", ee.Msg)
		}
		return c.commandFailed(i, kind, "execution of meta-command failed")
	}
	return stepOK
}
