;;; nesl-mode.el --- major mode for NESL, the nested data-parallel language  -*- lexical-binding: t -*-

;; Part of nessie (a compiler from NESL to CUDA and C): editors/README.md.
;; Keywords: languages

;;; Commentary:

;; Syntax highlighting for NESL programs (*.nesl), as nessie reads them:
;; keywords, which NESL takes in any case (FUNCTION, Let); comments from
;; one % to the next, across lines; strings, whose only escapes are \"
;; and \\; characters, `c (any one character after the backquote, a
;; quote or a % included); numbers; the built-in functions, constants
;; and datatypes of the basis library (lib-nesl/builtins.nesl:
;; tools/builtins.sh --update writes the list below, and
;; tests/suites/install.sh checks that it is the library's).
;;
;; `M-x compile' with `nessie --types FILE.nesl' finds the errors through
;; the usual `file:line:col: error:' pattern.
;;
;; Install: put this file on `load-path' and add
;;   (require 'nesl-mode)
;; `make install' puts it in PREFIX/share/emacs/site-lisp.

;;; Code:

(defgroup nesl nil
  "Editing NESL programs."
  :group 'languages)

(defcustom nesl-indent-offset 2
  "Columns a continued NESL line is indented by."
  :type 'integer
  :group 'nesl)

(defconst nesl-keywords
  '("function" "datatype" "let" "in" "if" "then" "else" "time")
  "NESL's keywords.")

(defconst nesl-operator-words '("and" "or" "xor" "nand" "nor")
  "NESL's operators that are words.")

(defconst nesl-types '("int" "float" "bool" "char")
  "NESL's base types.")

(defconst nesl-type-classes '("number" "ordinal" "logical" "any")
  "NESL's type classes, as in `a :: (a in number)'.")

(defconst nesl-builtins
  '(
    ;; BEGIN BUILTINS (tools/builtins.sh --update writes these lines)
    "abs" "acos" "all" "and_scan" "any" "append" "append_string_to_file" "asin"
    "atan" "bottop" "btoi" "ceil" "char_code" "close_check" "close_file" "code_char"
    "collect" "cond_put" "cons" "cos" "cosh" "count" "diff" "dist"
    "drop" "elt" "enumerate" "eql" "even_elts" "evenp" "exp" "exp_string"
    "expt" "find" "first" "flag_merge" "flatten" "float" "floor" "gcd"
    "get" "get_environment_variable" "group_by" "hash" "head_rest" "histogram" "identity" "index"
    "int_collect" "interleave" "intersection" "iseq" "isqrt" "join" "kth_smallest" "length"
    "length_from_flags" "linify" "ln" "log" "lowercase" "lshift" "mark_duplicates" "max"
    "max_index" "max_int" "max_scan" "max_val" "median" "min" "min_index" "min_int"
    "min_scan" "min_val" "minusp" "mod" "mult_scan" "name" "negate" "newline"
    "next" "not" "nullstr" "odd_elts" "oddp" "open_append_file" "open_check" "open_in_file"
    "open_out_file" "or_scan" "pack" "pack_index" "parity" "parse_float" "parse_int" "partition"
    "permute" "pi" "plus_scan" "plusp" "previous" "print" "print_char" "print_debug"
    "print_string" "printl" "product" "put" "rand" "rand_seed" "rank" "rank_down"
    "read" "read_char" "read_check" "read_float_seq_from_file" "read_int_seq_from_file" "read_line" "read_object_from_file" "read_string"
    "read_string_from_file" "read_word" "reciprocal" "rem" "remove_duplicates" "rep" "rest" "rest_tail"
    "reverse" "rotate" "round" "rshift" "search_for_subseqs" "select" "set_difference" "sin"
    "sinh" "snoc" "sort" "space" "split" "sqrt" "stderr" "stdin"
    "stdout" "stream" "string" "string_eql" "subseq" "sum" "tab" "take"
    "tan" "tanh" "transpose" "trunc" "union" "unpack" "unzip" "uppercase"
    "vpair" "vsep" "wordify" "write" "write_char" "write_check" "write_object_to_file" "write_string"
    "write_string_to_file" "xor_scan" "zerop" "zip"
    ;; END BUILTINS
    )
  "The basis library's functions, constants and datatypes.")

(defvar nesl-mode-syntax-table
  (let ((table (make-syntax-table)))
    ;; a comment runs from one % to the next: a generic comment fence
    (modify-syntax-entry ?% "!" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (modify-syntax-entry ?_ "_" table)
    (modify-syntax-entry ?` "'" table)
    (dolist (c '(?+ ?- ?* ?/ ?= ?< ?> ?^ ?# ?@ ?| ?, ?\; ?$ ?:))
      (modify-syntax-entry c "." table))
    (modify-syntax-entry ?\n " " table)
    table)
  "Syntax table of `nesl-mode'.")

(defconst nesl-syntax-propertize
  (syntax-propertize-rules
   ;; the character of `c is punctuation, so that `" starts no string
   ;; and `% no comment; not so inside a string or a comment, which a
   ;; backquote does not change ("`" is a string)
   ("`\\(.\\|\n\\)"
    (1 (unless (nth 8 (save-excursion (syntax-ppss (match-beginning 0))))
         (string-to-syntax ".")))))
  "Marks the character after a backquote as no delimiter.")

(defun nesl--words (words)
  "A regexp matching any of WORDS as a whole word."
  (concat "\\_<" (regexp-opt words t) "\\_>"))

(defconst nesl-font-lock-keywords
  `((,(nesl--words nesl-keywords) . font-lock-keyword-face)
    (,(nesl--words nesl-operator-words) . font-lock-builtin-face)
    ("\\_<\\(function\\)\\s-+\\(\\(?:\\sw\\|\\s_\\)+\\)" 2 font-lock-function-name-face)
    ("\\_<\\(datatype\\)\\s-+\\(\\(?:\\sw\\|\\s_\\)+\\)" 2 font-lock-type-face)
    (,(nesl--words (append nesl-types nesl-type-classes)) . font-lock-type-face)
    (,(nesl--words '("t" "f")) . font-lock-constant-face)
    ("`\\(.\\|\n\\)" . font-lock-string-face)
    (,(nesl--words nesl-builtins) . font-lock-builtin-face)
    ;; 1.5, 1., .5, 1e-3, 2E10, and integers
    ("\\_<[0-9]+\\(?:\\.[0-9]*\\)?\\(?:[eE][+-]?[0-9]+\\)?\\_>\\|\\.[0-9]+\\(?:[eE][+-]?[0-9]+\\)?"
     . font-lock-constant-face))
  "What `nesl-mode' highlights.")

;;;###autoload
(define-derived-mode nesl-mode prog-mode "NESL"
  "Major mode for NESL programs, as nessie compiles them."
  :syntax-table nesl-mode-syntax-table
  (setq-local comment-start "% ")
  (setq-local comment-end " %")
  (setq-local comment-start-skip "%+\\s-*")
  (setq-local syntax-propertize-function nesl-syntax-propertize)
  ;; NESL's keywords are case-insensitive: the third element
  (setq-local font-lock-defaults '(nesl-font-lock-keywords nil t))
  (setq-local indent-line-function #'indent-relative)
  (setq-local tab-width nesl-indent-offset))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.nesl\\'" . nesl-mode))

(provide 'nesl-mode)

;;; nesl-mode.el ends here
