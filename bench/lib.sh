# Shared by the bench/ scripts (sourced, not run).

# dburl URL DB: the same server, another database (URL or key=value form).
dburl() {
	local u=$1 db=$2
	if [[ $u == postgres://* || $u == postgresql://* ]]; then
		local q=""
		[[ $u == *\?* ]] && q="?${u#*\?}" && u=${u%%\?*}
		local rest=${u#*://}
		if [[ $rest == */* ]]; then u="${u%/*}/$db"; else u="$u/$db"; fi
		echo "$u$q"
	else
		echo "$u dbname=$db"
	fi
}
