" Vim syntax file
" Language:    NESL (nested data-parallel language), as nessie reads it
" Filenames:   *.nesl
" Maintainer:  the nessie project (editors/README.md)
"
" Keywords are case-insensitive in NESL (FUNCTION, Let), and so is this
" file.  Comments run from one % to the next, across lines; strings have
" only \" and \\ as escapes; `c is a character.  The built-in names are
" the basis library's (lib-nesl/builtins.nesl): tools/builtins.sh --update
" writes them below, and tests/suites/install.sh checks that they are.

if exists("b:current_syntax")
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syn case ignore
syn iskeyword @,48-57,_

" BEGIN BUILTINS (tools/builtins.sh --update writes these lines)
syn keyword neslBuiltin abs acos all and_scan any append append_string_to_file asin
syn keyword neslBuiltin atan bottop btoi ceil char_code close_check close_file code_char
syn keyword neslBuiltin collect cond_put cons cos cosh count diff dist
syn keyword neslBuiltin drop elt enumerate eql even_elts evenp exp exp_string
syn keyword neslBuiltin expt find first flag_merge flatten float floor gcd
syn keyword neslBuiltin get get_environment_variable group_by hash head_rest histogram identity index
syn keyword neslBuiltin int_collect interleave intersection iseq isqrt join kth_smallest length
syn keyword neslBuiltin length_from_flags linify ln log lowercase lshift mark_duplicates max
syn keyword neslBuiltin max_index max_int max_scan max_val median min min_index min_int
syn keyword neslBuiltin min_scan min_val minusp mod mult_scan name negate newline
syn keyword neslBuiltin next not nullstr odd_elts oddp open_append_file open_check open_in_file
syn keyword neslBuiltin open_out_file or_scan pack pack_index parity parse_float parse_int partition
syn keyword neslBuiltin permute pi plus_scan plusp previous print print_char print_debug
syn keyword neslBuiltin print_string printl product put rand rand_seed rank rank_down
syn keyword neslBuiltin read read_char read_check read_float_seq_from_file read_int_seq_from_file read_line read_object_from_file read_string
syn keyword neslBuiltin read_string_from_file read_word reciprocal rem remove_duplicates rep rest rest_tail
syn keyword neslBuiltin reverse rotate round rshift search_for_subseqs select set_difference sin
syn keyword neslBuiltin sinh snoc sort space split sqrt stderr stdin
syn keyword neslBuiltin stdout stream string string_eql subseq sum tab take
syn keyword neslBuiltin tan tanh transpose trunc union unpack unzip uppercase
syn keyword neslBuiltin vpair vsep wordify write write_char write_check write_object_to_file write_string
syn keyword neslBuiltin write_string_to_file xor_scan zerop zip
" END BUILTINS

syn keyword neslKeyword     function datatype let in if then else
syn keyword neslSpecial     time
syn keyword neslOperator    and or xor nand nor
syn keyword neslBoolean     t f
syn keyword neslType        int float bool char
syn keyword neslTypeClass   number ordinal logical any

syn match   neslNumber      "\<\d\+\>"
" 1.5, 1., .5, 1e-3, 2E10: a point or an exponent
syn match   neslFloat       "\<\d\+\.\d*\%([eE][+-]\=\d\+\)\="
syn match   neslFloat       "\.\d\+\%([eE][+-]\=\d\+\)\="
syn match   neslFloat       "\<\d\+[eE][+-]\=\d\+\>"

syn region  neslString      start=+"+ skip=+\\[\\"]+ end=+"+ contains=neslEscape
syn match   neslEscape      +\\[\\"]+ contained
syn region  neslComment     start="%" end="%" contains=neslTodo,@Spell
syn keyword neslTodo        TODO FIXME XXX contained

syn match   neslFunctionName "\%(\<function\s\+\)\@<=\h\w*"
syn match   neslTypeName     "\%(\<datatype\s\+\)\@<=\h\w*"

" a character: the one after the backquote, a quote or a % included,
" matched from the backquote, so that no string or comment starts inside
" it (`" is a character)
syn match   neslCharacter   "`\_."

hi def link neslKeyword      Keyword
hi def link neslSpecial      Statement
hi def link neslOperator     Operator
hi def link neslBoolean      Boolean
hi def link neslType         Type
hi def link neslTypeClass    Type
hi def link neslTypeName     Type
hi def link neslFunctionName Function
hi def link neslBuiltin      Function
hi def link neslNumber       Number
hi def link neslFloat        Float
hi def link neslString       String
hi def link neslEscape       SpecialChar
hi def link neslCharacter    Character
hi def link neslComment      Comment
hi def link neslTodo         Todo

let b:current_syntax = "nesl"

let &cpo = s:cpo_save
unlet s:cpo_save
