;;; test-hostile.el --- fixloop with Eglot in a hostile clone  -*- lexical-binding: t; -*-
;; Run by tests/run.sh: emacs --batch -q -l test-hostile.el WORKSPACE PROOF PYTHON
;; WORKSPACE comes from editors/shared/hostile_workspace.py: a `fixloop' package, stdlib shadows and a
;; sitecustomize.py that leave a file in PROOF when imported, an "interpreter" that leaves one when run,
;; and a .dir-locals.el that sets `fixloop-python' to it, `fixloop-settings' and Eglot's
;; `eglot-workspace-configuration' to no sandbox, its own memory, endpoint, model and budget.  The user
;; here accepts every directory variable (`enable-local-variables' :all), the worst case.  Eglot connects,
;; the server reports the settings in effect, a fix runs; nothing of the workspace may have run.

(require 'cl-lib)
(let* ((args (last command-line-args-left 3)))
  (defvar test-project (file-name-as-directory (expand-file-name (nth 0 args))))
  (defvar test-proof (expand-file-name (nth 1 args)))
  (defvar test-python (nth 2 args)))
(setq command-line-args-left nil)
(load (expand-file-name "../fixloop-eglot.el" (file-name-directory load-file-name)))
(defvar test-memory (expand-file-name "user-memory" (file-name-directory (directory-file-name test-project))))
;; The user's init file.
(setq fixloop-python test-python
      fixloop-settings `(:offline t :memory (:uri ,test-memory))
      enable-local-variables :all
      eglot-sync-connect 60
      eglot-connect-timeout 120)

(defvar test-failed 0)
(defvar test-prompts nil)
(defvar test-warnings nil)

(defun test-check (name ok &optional why)
  (if ok (princ (format "PASS %s\n" name))
    (setq test-failed (1+ test-failed))
    (princ (format "FAIL %s%s\n" name (if why (format ": %S" why) "")))))

(defun test-wait (seconds pred)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.2))
    (funcall pred)))

(defun test-proof ()
  (and (file-directory-p test-proof) (directory-files test-proof nil "^[^.]")))

(advice-add 'y-or-n-p :around (lambda (_orig prompt) (push prompt test-prompts) nil)) ; review: say no
(advice-add 'display-warning :before (lambda (_type message &rest _) (push message test-warnings)))

(let ((pricing (expand-file-name "inventory/pricing.py" test-project)))
  (find-file pricing)
  (python-mode)
  (test-check "the directory variables reached the buffer (the attack is live)"
              (and (local-variable-p 'fixloop-python) (local-variable-p 'eglot-workspace-configuration)))
  (condition-case err (apply #'eglot (eglot--guess-contact))
    (error (test-check "Eglot connects" nil err)))
  (test-check "the server starts (Eglot connects)" (test-wait 120 (lambda () (eglot-current-server))))
  (when (eglot-current-server)
   (let* ((server (eglot-current-server))
         (process (and server (jsonrpc--process server)))
         (pid (and process (process-id process))))
    (test-check "the directory-local fixloop-python and fixloop-settings are named as ignored"
                (cl-some (lambda (w) (string-match-p "ignored the directory-local fixloop-python, fixloop-settings" w))
                         test-warnings)
                test-warnings)
    (test-check "the server runs isolated, from the user's Python"
                (equal (process-command process) (list test-python "-I" "-m" "fixloop.lsp.server" "--stdio"))
                (and process (process-command process)))
    (let ((cwd (and pid (file-symlink-p (format "/proc/%d/cwd" pid)))))
      (test-check "the server's folder is not the workspace"
                  (and cwd (not (string-prefix-p (directory-file-name test-project) cwd))) cwd))
    ;; Eglot answers workspace/configuration from the directory's eglot-workspace-configuration.
    (let (report)
      (test-wait 60 (lambda ()
                      (setq report (fixloop-settings-in-effect))
                      (cl-some (lambda (m) (string-match-p "workspace/configuration" m)) (plist-get report :ignored))))
      (let ((s (plist-get report :settings))
            (ignored (mapconcat #'identity (plist-get report :ignored) "\n")))
        (test-check "the server kept the user's memory and a real sandbox"
                    (and (equal (plist-get (plist-get s :memory) :uri) test-memory)
                         (equal (plist-get (plist-get s :sandbox) :backend) "auto")
                         (member (plist-get (plist-get report :sandbox) :backend) '("bwrap" "landlock" "docker")))
                    report)
        (test-check "the endpoint, model and budget are the user's"
                    (and (equal (plist-get (plist-get s :llm) :base_url) "")
                         (not (equal (plist-get (plist-get s :llm) :model) "claude-evil"))
                         (= (plist-get s :max_cost_usd) 2.0))
                    s)
        (test-check "lowering max_iterations is the workspace's to do" (= (plist-get s :max_iterations) 3) s)
        (test-check "the server names each value of the workspace it did not take"
                    (cl-every (lambda (key) (string-match-p (regexp-quote (concat "fixloop.settings: " key)) ignored))
                              '("sandbox.backend" "memory.uri" "llm.base_url" "llm.model" "max_cost_usd"))
                    ignored)
        (test-check "the answer's review mode is not taken"
                    (string-match-p "fixloop.review: ignored" ignored) ignored)))
    (fixloop-fix)
    (test-check "a fix runs and comes back for review"
                (test-wait 300 (lambda () (cl-some (lambda (p) (string-match-p "pricing\\.py" p)) test-prompts)))
                test-prompts)
    (ignore-errors (eglot-shutdown server)))))

;; A lambda in a project's eglot-workspace-configuration is code: not safe to take from a directory.
(test-check "a function as eglot-workspace-configuration is not a safe directory value"
            (not (safe-local-variable-p 'eglot-workspace-configuration '(lambda (_s) (shell-command "true")))))
(test-check "a plist still is (the server reads it as the workspace's)"
            (safe-local-variable-p 'eglot-workspace-configuration '(:fixloop (:settings (:offline t)))))
(test-check "fixloop-python and fixloop-settings are risky as directory values"
            (and (risky-local-variable-p 'fixloop-python) (risky-local-variable-p 'fixloop-settings)))
(test-check "nothing of the workspace ran (no proof file)" (null (test-proof)) (test-proof))
(kill-emacs (if (> test-failed 0) 1 0))
