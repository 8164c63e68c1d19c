" NESL programs: *.nesl (editors/vim/syntax/nesl.vim)
au BufRead,BufNewFile *.nesl setfiletype nesl
