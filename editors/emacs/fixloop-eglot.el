;;; fixloop-eglot.el --- the fixloop language server with Eglot  -*- lexical-binding: t; -*-

;; Load this file (or copy its forms into your init file).  It tells Eglot how to start the fixloop
;; server for Python buffers and adds two commands.  Needs Emacs 28 with Eglot 1.9 or newer (Debian:
;; apt install elpa-eglot; Emacs 29+ has Eglot built in).
;;
;;   (setq fixloop-python "~/.local/share/fixloop/venv/bin/python") ; a Python that has fixloop
;;   (load "/path/to/fixloop/editors/emacs/fixloop-eglot.el")
;;   M-x eglot in a Python buffer, then M-x fixloop-fix
;;
;; A fix arrives as a workspace edit; Eglot asks "Server wants to edit ... Proceed?" first (keep
;; `eglot-confirm-server-initiated-edits' at its default, `confirm').  A run that ends without a fix
;; says so in the echo area, with its next steps; Eglot shows the run's progress in the mode line.

;;; Code:

(require 'cl-lib)
(require 'eglot)

(defvar fixloop-python "python3"
  "The Python that has fixloop installed; the server runs as PYTHON -m fixloop.lsp.server --stdio.")

(defvar fixloop-settings nil
  "Settings for the server, a plist in the shape of [tool.fixloop], e.g. (:offline t :max_iterations 20).")

(defun fixloop-eglot-contact (&optional _interactive)
  "The server command and its initializationOptions (docs/protocol.md)."
  `(,fixloop-python "-m" "fixloop.lsp.server" "--stdio"
    :initializationOptions (:review "workspaceEdit" ,@(and fixloop-settings `(:settings ,fixloop-settings)))))

(add-to-list 'eglot-server-programs '((python-mode python-ts-mode) . fixloop-eglot-contact))

(defun fixloop-fix (&optional scope)
  "Run fixloop on the workspace (SCOPE \"workspace\") until the tests pass; the fix comes back as an edit."
  (interactive)
  (eglot-execute-command (eglot--current-server-or-lose) "fixloop.fix"
                         (vector `(:uri ,(eglot--path-to-uri (buffer-file-name))
                                   :scope ,(or scope "workspace")))))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql fixloop/runFinished)) &key status message next_steps &allow-other-keys)
  "Say how a run ended (a fix arrives as an edit); when it did not fix, its next steps (docs/protocol.md)."
  (unless (equal status "fixed")
    (message "fixloop %s: %s%s" status (or message "")
             (mapconcat (lambda (step) (concat "\n  next: " step)) (or next_steps []) ""))))

(defun fixloop-cancel ()
  "Cancel the fixloop run in progress."
  (interactive)
  (eglot-execute-command (eglot--current-server-or-lose) "fixloop.cancel" (vector (make-hash-table))))

(provide 'fixloop-eglot)
;;; fixloop-eglot.el ends here
