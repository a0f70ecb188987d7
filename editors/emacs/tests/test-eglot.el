;;; test-eglot.el --- headless check of fixloop with Eglot  -*- lexical-binding: t; -*-
;; Run by tests/run.sh: emacs --batch -q -l test-eglot.el PROJECT PYTHON
;; Starts the real server through fixloop-eglot.el, waits for a diagnostic, runs fixloop.fix with
;; workspace/executeCommand, answers Eglot's "Server wants to edit" prompt, saves, and prints PASS/FAIL lines.

(require 'cl-lib)
(let* ((args (last command-line-args-left 2)))
  (defvar test-project (expand-file-name (nth 0 args)))
  (defvar test-python (nth 1 args)))
(setq command-line-args-left nil)
(load (expand-file-name "../fixloop-eglot.el" (file-name-directory load-file-name)))
(setq fixloop-python test-python
      fixloop-settings `(:offline t :memory (:uri ,(expand-file-name ".fixloop-test-memory" test-project)))
      eglot-sync-connect 60
      eglot-connect-timeout 120)

(defvar test-failed 0)
(defvar test-prompts nil "What Eglot asked the user.")

(defun test-check (name ok &optional why)
  (if ok (princ (format "PASS %s\n" name))
    (setq test-failed (1+ test-failed))
    (princ (format "FAIL %s%s\n" name (if why (format ": %s" why) "")))))

(defun test-wait (seconds pred)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.2))
    (funcall pred)))

;; The review: Eglot asks before a server-initiated edit; answer yes, and remember the question.
(advice-add 'y-or-n-p :around (lambda (_orig prompt) (push prompt test-prompts) t))

(let* ((unsafe (expand-file-name "inventory/cli_input.py" test-project))
       (pricing (expand-file-name "inventory/pricing.py" test-project))
       (before (with-temp-buffer (insert-file-contents pricing) (buffer-string))))
  (with-temp-file unsafe
    (insert "\"\"\"Asks for a quantity.\"\"\"\n\n\ndef ask_quantity() -> int:\n    return eval(input(\"quantity? \"))\n"))
  (find-file unsafe)
  (python-mode)
  ;; M-x eglot, as a user would (eglot-ensure waits for a command loop that batch mode does not have).
  (apply #'eglot (eglot--guess-contact))
  (test-check "the server starts (Eglot connects)"
              (test-wait 120 (lambda () (eglot-current-server))))
  (let ((server (eglot-current-server)))
    (test-check "it is the fixloop server"
                (and server (string= "fixloop" (plist-get (eglot--server-info server) :name)))
                (and server (eglot--server-info server)))
    (test-check "a safety diagnostic appears (flymake)"
                (test-wait 60 (lambda () (cl-some (lambda (d) (string-match-p "eval" (flymake-diagnostic-text d)))
                                                  (flymake-diagnostics))))
                (mapcar #'flymake-diagnostic-text (flymake-diagnostics)))
    (find-file pricing)
    (python-mode)  ; joins the running server: same project and mode
    (test-wait 10 (lambda () (eglot-current-server)))
    (let ((result (fixloop-fix)))
      (test-check "workspace/executeCommand fixloop.fix answers with a run id" t result))
    (test-check "the fix arrives as an edit for review (Eglot asks first)"
                (test-wait 300 (lambda () (cl-some (lambda (p) (string-match-p "pricing\\.py" p)) test-prompts)))
                test-prompts)
    (test-check "the accepted edit changed the buffer"
                (test-wait 30 (lambda () (with-current-buffer (get-file-buffer pricing)
                                           (not (string= before (buffer-string)))))))
    (with-current-buffer (get-file-buffer pricing) (save-buffer))
    (let* ((default-directory (file-name-as-directory test-project))
           (status (call-process "python3" nil "*pytest*" nil "-m" "pytest" "-q" "-p" "no:cacheprovider")))
      (test-check "the tests pass after the fix (pytest)" (eq status 0)
                  (with-current-buffer "*pytest*" (buffer-string))))
    ;; A run that does not end fixed is said in the echo area (fixloop/runFinished).
    (let ((said nil))
      (advice-add 'message :before (lambda (fmt &rest args) (when fmt (push (apply #'format fmt args) said)))
                  '((name . test-said)))
      (fixloop-fix)
      (test-check "a run that ends without a fix says how it ended"
                  (test-wait 120 (lambda () (cl-some (lambda (m) (string-match-p "^fixloop nothing_to_fix: " m)) said)))
                  said)
      (advice-remove 'message 'test-said))
    (ignore-errors (eglot-shutdown server))))
(princ (format "emacs %s, eglot %s\n" emacs-version
               (file-name-nondirectory (directory-file-name (file-name-directory (locate-library "eglot"))))))
(kill-emacs (if (> test-failed 0) 1 0))
