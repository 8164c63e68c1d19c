;; tests/install/editors.el: the Emacs face at each position of
;; editors.nesl that editors.expected names, as "LINE:COL FACE" lines
;; (nil: none), printed;
;; run by tests/suites/install.sh as `emacs --batch -Q -l' from the
;; repository's root.
(defvar editors-root default-directory) ; find-file moves default-directory
(setq load-path (cons (expand-file-name "editors/emacs") load-path))
(require 'nesl-mode)
(find-file "tests/install/editors.nesl")
(font-lock-ensure)
(with-temp-buffer
  (insert-file-contents (expand-file-name "tests/install/editors.expected" editors-root))
  (dolist (line (split-string (buffer-string) "\n" t))
    (let* ((pos (split-string (car (split-string line " ")) ":"))
           (l (string-to-number (car pos)))
           (c (string-to-number (cadr pos))))
      (with-current-buffer "editors.nesl"
        (goto-char (point-min))
        (forward-line (1- l))
        (forward-char (1- c))
        (let ((face (get-text-property (point) 'face)))
          (princ (format "%d:%d %s\n" l c (if (consp face) (car face) face))))))))
(princ (format "mode %s\n" (with-current-buffer "editors.nesl" major-mode)))
