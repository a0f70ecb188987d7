;;; fixloop-eglot.el --- the fixloop language server with Eglot  -*- lexical-binding: t; -*-

;; Load this file (or copy its forms into your init file).  It tells Eglot how to start the fixloop
;; server for Python buffers and adds a few commands.  Needs Emacs 28 with Eglot 1.9 or newer (Debian:
;; apt install elpa-eglot; Emacs 29+ has Eglot built in).
;;
;;   (setq fixloop-python "~/.local/share/fixloop/venv/bin/python") ; a Python that has fixloop
;;   (load "/path/to/fixloop/editors/emacs/fixloop-eglot.el")
;;   M-x eglot in a Python buffer, then M-x fixloop-fix
;;
;; A fix arrives as a workspace edit; Eglot asks "Server wants to edit ... Proceed?" first (keep
;; `eglot-confirm-server-initiated-edits' at its default, `confirm').  A run that ends without a fix
;; says so in the echo area, with its next steps; Eglot shows the run's progress in the mode line.
;;
;; A cloned project is untrusted.  The server runs as PYTHON -I -m fixloop.lsp.server in a folder of
;; fixloop's own, never the project's, so nothing of the project can be imported; `fixloop-python' and
;; `fixloop-settings' are taken from your init file only (their global values: a directory-local value
;; is ignored and named); what the project's `.dir-locals.el' gives the server through Eglot's
;; `eglot-workspace-configuration' is the workspace's, which the server lets only tighten.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'json)

(defvar fixloop-python "python3"
  "The Python that has fixloop installed; the server runs as PYTHON -I -m fixloop.lsp.server --stdio.
Only the global value counts (set it in your init file): a directory-local one is ignored.")

(defvar fixloop-settings nil
  "Settings for the server, a plist in the shape of [tool.fixloop], e.g. (:offline t :max_iterations 20).
Only the global value counts (set it in your init file): a directory-local one is ignored.")

;; Each names a program to run or decides the sandbox: Emacs asks before it applies them from a
;; directory, and this file ignores them there even when you said yes.
(put 'fixloop-python 'risky-local-variable t)
(put 'fixloop-settings 'risky-local-variable t)

;; Eglot calls `eglot-workspace-configuration' when it is a function, and takes any list from a
;; project's .dir-locals.el without asking: a lambda there would be the project's code run on the host.
;; A function value is not safe (Emacs asks first); a plist still is, and the server reads it as the
;; workspace's.
(put 'eglot-workspace-configuration 'safe-local-variable
     (lambda (value) (and (listp value) (not (functionp value)))))

(defun fixloop--directory ()
  "The folder the server runs in: fixloop's own, never the project's."
  (let ((dir (locate-user-emacs-file "fixloop/")))
    (make-directory dir t)
    dir))

(defun fixloop--ignored-locals ()
  "The fixloop variables that are local in this buffer (a project's .dir-locals.el), which are ignored."
  (cl-remove-if-not #'local-variable-p '(fixloop-python fixloop-settings)))

(defun fixloop-eglot-contact (&optional _interactive)
  "How Eglot starts the server, and its initializationOptions (docs/protocol.md)."
  (let ((python (default-value 'fixloop-python))
        (settings (default-value 'fixloop-settings))
        (ignored (fixloop--ignored-locals)))
    (when ignored
      (display-warning 'fixloop
                       (format "ignored the directory-local %s: only your init file chooses the server's Python and settings"
                               (mapconcat #'symbol-name ignored ", "))))
    ;; (CLASS . INITARGS): Eglot takes a leading symbol for the server's class.
    `(eglot-lsp-server
      :process
      ,(lambda ()
         ;; -I: no current folder, PYTHON* variables or user site on the module search path.
         (let ((default-directory (fixloop--directory)))
           (make-process
            :name "fixloop" :command (list python "-I" "-m" "fixloop.lsp.server" "--stdio")
            :connection-type 'pipe :coding 'utf-8-emacs-unix :noquery t
            :stderr (get-buffer-create "*fixloop stderr*"))))
      :initializationOptions (:review "workspaceEdit" ,@(and settings `(:settings ,settings))))))

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

(defun fixloop-settings-in-effect ()
  "The server's `fixloop.settings': what the runs use, and what the workspace asked for and did not get."
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   `(:command "fixloop.settings" :arguments [,(make-hash-table)])))

(defun fixloop-show-settings ()
  "Show the settings in effect, the sandbox in use and the workspace's values the server did not take."
  (interactive)
  (let ((report (fixloop-settings-in-effect)))
    (with-current-buffer (get-buffer-create "*fixloop settings*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (format "sandbox in use: %s\n" (plist-get (plist-get report :sandbox) :backend)))
        (insert "not taken from the workspace:\n")
        (mapc (lambda (why) (insert "  " why "\n")) (plist-get report :ignored))
        (insert "settings in effect:\n" (json-encode (plist-get report :settings)) "\n"))
      (special-mode)
      (display-buffer (current-buffer)))))

(provide 'fixloop-eglot)
;;; fixloop-eglot.el ends here
