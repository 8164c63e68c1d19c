" tests/install/editors.vim: the Vim syntax group at each position of
" editors.nesl that editors.expected names, as "LINE:COL GROUP" lines
" (the group empty where there is none), written
" to $OUT_FILE; run by tests/suites/install.sh with editors/vim first on
" the runtimepath.
let s:out = []
for s:want in readfile('tests/install/editors.expected')
  let [s:l, s:c] = split(split(s:want)[0], ':')
  call add(s:out, s:l . ':' . s:c . ' ' . synIDattr(synID(s:l + 0, s:c + 0, 1), 'name'))
endfor
call add(s:out, 'filetype ' . &filetype)
call writefile(s:out, $OUT_FILE)
qa!
