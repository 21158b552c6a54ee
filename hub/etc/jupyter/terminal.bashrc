# The start of every terminal of a Jupyter server the course starts: jupyter_server_config.py beside this
# file starts `bash --rcfile <this file> -i`.  Left to itself, jupyter_server starts the account's shell
# as a login shell, and Debian's /etc/profile sets PATH afresh: the server's PATH, which the hub gives
# as "<the course's environment>/bin:/usr/bin:/bin", is lost and `python` is not found (or is the
# system's).  So this reads what a login shell reads, in a login shell's order, then puts the server's
# PATH back in front, followed by what those files added that it lacks.

_course_server_path=$PATH

if [ -r /etc/profile ]; then
    . /etc/profile  # on Debian it reads /etc/bash.bashrc too (PS1 is set: the shell is interactive)
fi
for _course_profile in ~/.bash_profile ~/.bash_login ~/.profile; do
    if [ -r "$_course_profile" ]; then
        . "$_course_profile"  # the first one found, as bash does (Debian's ~/.profile reads ~/.bashrc)
        break
    fi
done

_course_path=$_course_server_path
IFS=: read -r -a _course_added <<< "$PATH"
for _course_folder in "${_course_added[@]}"; do
    if [ -z "$_course_folder" ]; then
        continue  # an empty entry means the current folder: never added here
    fi
    case ":$_course_path:" in
        *":$_course_folder:"*) ;;
        *) _course_path=${_course_path:+$_course_path:}$_course_folder ;;
    esac
done
PATH=$_course_path
export PATH
unset _course_server_path _course_profile _course_path _course_added _course_folder
