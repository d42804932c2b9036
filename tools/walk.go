package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// walker visits a directory tree of the workspace in parallel, with a
// bounded number of workers.
//
// It never follows symbolic links: a link is reported as an entry but a
// link to a directory is not entered. That is the whole of the loop and
// escape protection while walking (a tree without followed links has no
// cycles), and it matches what git and ripgrep do by default. Every
// directory is opened as an os.Root below its parent's, so a directory
// swapped for a link mid-walk cannot lead outside the workspace either.
// .git directories are always skipped and .gitignore files (nested ones
// too, and .git/info/exclude) are honoured.
type walker struct {
	ws *Workspace
	// enter, if set, reports whether to walk into the directory rel (a
	// workspace-relative path); ignored directories are never entered.
	enter func(rel string) bool
	// entry is called for each entry that is not a directory (regular
	// files, links, special files) and not ignored, from the job of the
	// directory listing it. Returning true queues a job calling file.
	entry func(rel string, d fs.DirEntry) bool
	// file is called in a job of its own, with dir open on the file's
	// directory and buffers owned by the calling worker.
	file func(dir *os.Root, name, rel string, bufs *buffers)

	// unreadable counts directories that could not be listed.
	unreadable atomic.Int64

	start      *os.Root // the start directory, owned by its job
	startRules *ignoreRules

	mu     sync.Mutex
	cond   *sync.Cond
	stack  []walkJob
	active int
}

// dirRef is an open directory shared by the jobs of its entries; the last
// one to finish closes it.
type dirRef struct {
	root  *os.Root
	rules *ignoreRules
	refs  atomic.Int32
}

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 {
		d.root.Close()
	}
}

// walkJob lists the directory name of dir (the start directory when dir
// is nil), or (file) handles the file name in dir.
type walkJob struct {
	dir  *dirRef
	name string
	rel  string
	file bool
}

// walk walks the resolved directory start. It returns the error of
// opening start; errors below it are skipped (and counted in unreadable
// for directories).
func (w *walker) walk(ctx context.Context, start string) error {
	root, err := w.ws.root.OpenRoot(start)
	if err != nil {
		return err
	}
	w.start, w.startRules = root, w.ws.ancestorRules(start)
	w.cond = sync.NewCond(&w.mu)
	w.stack = append(w.stack, walkJob{rel: start})

	workers := runtime.GOMAXPROCS(0) + 2
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { w.work(ctx) })
	}
	wg.Wait()
	return nil
}

// buffers are a worker's reusable buffers.
type buffers struct {
	data  []byte   // a file's content
	lower []byte   // the content in lower case
	dfa   *lineDFA // the worker's DFA of the pattern, when the matcher uses one
}

func (w *walker) work(ctx context.Context) {
	var bufs buffers
	for {
		j, ok := w.next()
		if !ok {
			return
		}
		switch {
		case ctx.Err() != nil:
			w.drop(j)
		case j.file:
			w.file(j.dir.root, j.name, j.rel, &bufs)
			j.dir.release()
		default:
			w.list(j)
		}
		w.finish()
	}
}

// next pops a job, waiting while other workers may still queue more. It
// returns false when the walk is over.
func (w *walker) next() (walkJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 {
		if w.active == 0 {
			return walkJob{}, false
		}
		w.cond.Wait()
	}
	j := w.stack[len(w.stack)-1]
	w.stack = w.stack[:len(w.stack)-1]
	w.active++
	return j, true
}

func (w *walker) finish() {
	w.mu.Lock()
	w.active--
	if w.active == 0 && len(w.stack) == 0 {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

func (w *walker) push(jobs []walkJob) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.stack = append(w.stack, jobs...)
	w.mu.Unlock()
	if len(jobs) == 1 {
		w.cond.Signal()
	} else {
		w.cond.Broadcast()
	}
}

// list lists the directory of job j and queues jobs for its entries.
func (w *walker) list(j walkJob) {
	root, rules := w.start, w.startRules
	if j.dir != nil {
		r, err := j.dir.root.OpenRoot(j.name)
		rules = j.dir.rules
		j.dir.release()
		if err != nil {
			w.unreadable.Add(1)
			return
		}
		root = r
	}
	rules = rules.with(readIgnore(root, ".gitignore", j.rel))
	d := &dirRef{root: root, rules: rules}
	d.refs.Store(1)
	defer d.release()

	f, err := root.Open(".")
	if err != nil {
		w.unreadable.Add(1)
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		w.unreadable.Add(1)
	}
	var jobs []walkJob
	for _, e := range entries {
		name := e.Name()
		rel := filepath.Join(j.rel, name)
		isDir := e.IsDir()
		if isDir && name == ".git" {
			continue
		}
		if rules != nil && rules.ignored(strings.Split(filepath.ToSlash(rel), "/"), isDir) {
			continue
		}
		switch {
		case isDir:
			if w.enter != nil && !w.enter(rel) {
				continue
			}
			d.refs.Add(1)
			jobs = append(jobs, walkJob{dir: d, name: name, rel: rel})
		case w.entry(rel, e) && w.file != nil:
			d.refs.Add(1)
			jobs = append(jobs, walkJob{dir: d, name: name, rel: rel, file: true})
		}
	}
	w.push(jobs)
}

// drop releases what a job holds without doing it.
func (w *walker) drop(j walkJob) {
	switch {
	case j.dir != nil:
		j.dir.release()
	default:
		w.start.Close()
	}
}
